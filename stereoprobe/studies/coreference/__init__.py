"""The coreference study: Marin & Eger (seed 000) with Sterlie, Weng & Feragen's criteria (seed 001).

A model reads "The doctor yelled at the nurse because she was late. Who was late?" with
he, she and they in turn; the sentence has a right answer whatever the pronoun.
docs/coreference.md says what is asked and how every number is defined. Pure modules,
no I/O beyond the study's data folder and a user's pairs CSV::

    templates.load_templates(path=None) -> tuple[CorefTemplate, ...]     # 000's Table 1, data/templates.csv
    templates.load_pronouns(path=None) -> tuple[Pronoun, ...]            # he/his/was, she/her/was, they/their/were
    templates.load_instruction(path=None) -> str                         # 000's answer-format instruction
    pairs.load_jobs(path=None) -> tuple[Job, ...]                        # seed 003's Table 6
    pairs.jobs_pairs(jobs=None) -> list[Pair]                            # default: 20 x 20 jobs, both roles
    pairs.catalog_professions(path=None) -> list[str]                    # the catalog's professions, singular
    pairs.random_pairs(n, seed, professions=None) -> list[Pair]          # n >= 1 distinct ordered pairs
    pairs.read_pairs_csv(path) -> list[Pair]                             # profession_a, profession_b[, gender_a, gender_b]
    probes.make_probes(pairs, templates=None, pronouns=None, instruction=None) -> list[CorefProbe]
    probes.coref_probe_id(template, a, b, pronoun, text) -> str          # 12 hex digits of sha1
    probes.stereotype_of(pronoun_gender, gender_a, gender_b, expected) -> "pro" | "anti" | None
    probes.answer_texts(probe, template) -> (str, str)                   # logprob mode's two replies
    answers.parse_answer(text, profession_a, profession_b) -> ParsedAnswer(answer, refused)
    answers.decide(logprob_a, logprob_b) -> "A" | "B" | "U"
    answers.answer_from_reply(probe_id, raw, a, b) / answer_from_logprobs(probe_id, la, lb) -> CorefAnswer
    frame.answer_frame(probes, answers) -> DataFrame                     # one row per answered probe
    frame.triple_table(frame, pronouns=("he", "she", "they")) -> DataFrame
    inference.make_plan(clusters, n_boot=1000, seed=0, level=0.95) -> Plan   # bootstrap over profession pairs
    tables.table3(frame, plan, order=None) -> DataFrame                  # 000's Table 3 with intervals
    tables.inconsistent_professions(frame, top=None) -> DataFrame
    tables.winobias(frame, plan, pronouns=("he", "she")) -> DataFrame    # pro vs anti accuracy, gap, p, q
    criteria.sterlie(frame, plan, pronouns=PRONOUNS) -> DataFrame        # FNR FPR PPV NPV per pronoun
    criteria.four_fifths(frame, pronouns=PRONOUNS, n_perm=999, seed=0) -> DataFrame  # ratio, null_p05, p
    criteria.pronoun_differences(frame, plan, pronouns=PRONOUNS) -> DataFrame        # paired, BH q
    criteria.four_fifths_of_rates(rates) / criteria.predictive_values(fnr, fpr, prevalence=0.5)

Records: ``CorefTemplate``, ``Pronoun``, ``Job``, ``Pair``, ``CorefProbe``, ``ParsedAnswer``,
``CorefAnswer``, ``Plan`` (frozen dataclasses).
"""
