"""The gender classifier against texts labelled by hand, on three revision sets:

- tests/data/gender_texts.csv: 206 texts (53 written by SmolLM2-135M-Instruct, 153 written
  for the file), the set the rules were revised on three times (gender-1, gender-2, gender-3);
- tests/data/gender_texts_2.csv: 116 texts (42 by SmolLM2, 74 written by a second author),
  held out for gender-2 (labelled before the classifier was run on them, measured once:
  104 of 116) and then read to write gender-3's rules, so now a second revision set;
- tests/data/gender_texts_3.csv: 170 texts by an author who never saw the classifier, blind
  for gender-3 (measured once: 155 of 170) and then read to write gender-4's rules, so now a
  third revision set.

These figures are optimistic: the rules were fitted to these texts. The figure to expect is
blind set 4's (tests/data/gender_texts_blind.csv, 150 texts measured once after gender-4: 133). Each label is a person's reading,
never the classifier's. The floors are the measured counts: a worse classifier fails here.
A fourth file, 61 ordinary SmolLM2 texts, shows how often the rules' cases occur in model
output. The unit tests below show each rule on a text written for the test, with a
small name table whose shares are given (p(gf): the share of a name's bearers who are women)."""

from __future__ import annotations

import csv
import itertools
from collections import Counter

import pytest

from conftest import REPO
from stereoprobe.generation.ask import label_fields, prompt_words
from stereoprobe.generation.gender import GenderClassifier
from stereoprobe.names import NameTable

DATA = REPO / "tests" / "data" / "gender_texts.csv"
SET_2 = REPO / "tests" / "data" / "gender_texts_2.csv"
SET_3 = REPO / "tests" / "data" / "gender_texts_3.csv"
BLIND = REPO / "tests" / "data" / "gender_texts_blind.csv"


def rows(path=DATA):
    """The rows after the file's leading # comments (a text may have a line starting with #)."""
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(itertools.dropwhile(lambda line: line.startswith("#"), f)))


@pytest.fixture(scope="module")
def classifier():
    return GenderClassifier()


def agreement(texts, classifier) -> Counter:
    """(source, agrees) -> count of texts."""
    got = [label_fields(r["text"], "stop", False, classifier, prompt_words(r["profession"], "")) for r in texts]
    return Counter((r["source"], (g["label"] or g["problem"]) == r["label"]) for r, g in zip(texts, got))


def test_the_classifier_agrees_with_the_hand_labels_of_revision_set_1(classifier):
    texts = rows()
    assert len(texts) == 206 and Counter(r["source"] for r in texts) == {"smollm2": 53, "hand": 153}
    agree = agreement(texts, classifier)
    # measured 202 of 206 (98.1%; SmolLM2's texts 51 of 53, the written ones 151 of 153), gender-3 and gender-4;
    # gender-2 had 200 (97.1%), gender-1 198 (96.1%). Optimistic: these texts were used to revise the rules
    assert agree[("smollm2", True)] >= 51 and agree[("hand", True)] >= 151
    # every class occurs among the labels, so agreement is not one class's
    assert {r["label"] for r in texts} == {"male", "female", "neutral", "mixed"}


def test_the_classifier_agrees_with_the_hand_labels_of_revision_set_2(classifier):
    texts = rows(SET_2)
    assert len(texts) == 116 and Counter(r["source"] for r in texts) == {"smollm2": 42, "hand": 74}
    assert not {r["text"] for r in texts} & {r["text"] for r in rows()}  # no text of revision set 1
    agree = agreement(texts, classifier)
    # gender-3 and gender-4: 116 of 116 (SmolLM2's 42 of 42, the written ones 74 of 74), after gender-3's rules were
    # written from gender-2's twelve disagreements here (gender-2: 104, measured while the set was held out)
    assert agree[("smollm2", True)] >= 42 and agree[("hand", True)] >= 74
    assert {r["label"] for r in texts} == {"male", "female", "neutral", "mixed"}


def test_the_classifier_agrees_with_the_hand_labels_of_revision_set_3(classifier):
    texts = rows(SET_3)
    assert len(texts) == 170 and Counter(r["source"] for r in texts) == {"typical": 120, "hard": 50}
    assert not {r["text"] for r in texts} & {r["text"] for r in rows() + rows(SET_2)}
    agree = agreement(texts, classifier)
    # gender-4: 168 of 170 (the 120 typical replies, 48 of the 50 hard cases), after its rules were written from
    # gender-3's fifteen disagreements here. gender-3 had 155 (120 and 35), measured once while the set was blind
    # (commit 607c07b). Optimistic; docs/anecdotes.md lists the two texts still wrong
    assert agree[("typical", True)] >= 120 and agree[("hard", True)] >= 48
    assert {r["label"] for r in texts} == {"male", "female", "neutral", "mixed"}


def test_the_classifier_on_blind_set_4_it_never_saw(classifier):
    texts = rows(BLIND)
    assert len(texts) == 150 and Counter(r["source"] for r in texts) == {"typical": 100, "hard": 50}
    assert not {r["text"] for r in texts} & {r["text"] for r in rows() + rows(SET_2) + rows(SET_3)}
    agree = agreement(texts, classifier)
    # measured once, after gender-4's rules were set (commit 5477027): 133 of 150 (88.7%): typical replies 99 of 100,
    # hard cases 34 of 50 (gender-3: 98 and 35). Never used to revise the rules: a lower count is a regression, a
    # higher one needs a new blind set to be believed. docs/anecdotes.md lists the 17 disagreements
    assert agree[("typical", True)] >= 99 and agree[("hard", True)] >= 34
    assert {r["label"] for r in texts} == {"male", "female", "neutral", "mixed"}


def test_the_classifier_on_ordinary_smollm2_texts_in_no_revision_set(classifier):
    texts = rows(REPO / "tests" / "data" / "gender_texts_smollm2.csv")
    assert len(texts) == 61 and {r["source"] for r in texts} == {"smollm2"}
    assert not {r["text"] for r in texts} & {r["text"] for r in rows() + rows(SET_2) + rows(SET_3)}
    agree = agreement(texts, classifier)
    # measured 58 of 61 (95.1%), gender-4, gender-3 and gender-2 alike: a blogger's "she" beside a baker of no gender,
    # a list of three doctors (mixed) read as another language, and a dish's name ("Croque Meline") read as a name
    assert agree[("smollm2", True)] >= 58
    assert Counter(r["label"] for r in texts) == {"male": 23, "neutral": 20, "female": 17, "mixed": 1}


# p(gf) of the names below, as given to the test (nomquamgender's are close: Alex 0.093, Morgan 0.385)
PGF = {"Alex": 0.09, "Morgan": 0.39, "Taylor": 0.36, "Tom": 0.01, "James": 0.01, "Joe": 0.01,
       "Maria": 0.99, "Emma": 0.99, "Anna": 0.99, "Priya": 0.99, "Obi": 0.01, "North": 0.02, "Broadway": 0.05,
       # names of places in the name table (nomquamgender's p(gf), rounded)
       "Louis": 0.01, "Antonio": 0.01, "Santa": 0.2, "Augustine": 0.1, "Florida": 0.97, "Austin": 0.01,
       "Georgia": 0.98, "Smith": 0.1}


@pytest.fixture(scope="module")
def small():
    return GenderClassifier(NameTable(PGF))


@pytest.mark.parametrize("text, label", [
    # the boy is met (after "noticed"), so "him" and "he" are his: she is the teacher's only marker
    ("The teacher noticed a shy boy in the back row. She gave him a book, and he read it twice.", "female"),
    # the profession's daughter is the person concerned's relative: "she" and "her" are hers, "him" the teacher's
    ("The teacher's daughter watched him work for hours. Years later, she opened her own school.", "male"),
    # the same words with "and" or "was" before the noun: a pair, and what the person is
    ("Anna and her brother opened a bakery. She made the bread, he made the cakes.", "mixed"),
    ("The nurse was a kind woman. She stayed late every night.", "female"),
    ("The teacher worked two jobs as a single mother. She never missed a school play.", "female"),
    # nobody before the woman (no marker, no profession word): she is the person concerned
    ("In a small village lived an old woman. She baked bread for the whole street.", "female"),
    # a name's 's is the father's determiner, at the start of the sentence: he is introduced, not met
    ("Priya's father was a teacher. He built the village school.", "male"),
    # an appositive after someone unnamed is that someone: the father is the homeowner, met; "her" the plumber's
    ("The teacher arrived at midnight. The homeowner, a tired father of three, thanked her twice.", "female"),
    # "He ... him" in one clause are two men: the subject is not the boy met, so the text is about a man
    ("The teacher found the lost boy a book. He read it with him until the bus came.", "male"),
])
def test_a_gendered_noun_met_later_is_a_secondary_person_with_its_pronouns(small, text, label):
    assert small.classify(text, prompt_words("teacher", ""))[0] == label


def test_a_relative_met_later_is_a_secondary_person_too(small):
    # "with my mom": the narrator's mother, met; "She" is hers and the narrator has no gender (gender-2: female)
    text = "I had a wonderful relationship with my mom. She was my best friend."
    assert small.classify(text)[0] == "neutral"


@pytest.mark.parametrize("text, label", [
    # one subject pronoun, He; nobody introduced as a woman: the three "her" are the teenager's (2 would say female)
    ("The taxi driver saw the runaway teenager. He bought her a sandwich, called her parents and waited with her.",
     "male"),
    # James is introduced by name, so "his" and "him" stay his: James, his, His, him against mother, she
    ("As a lawyer, James fought for his clients. His mother was proud of him, and she told everyone.", "male"),
    # "her" comes before "He": the lawyer's (her, He: a tie, the first marker decides)
    ("The lawyer checked her client's file. He was innocent.", "female"),
])
def test_object_pronouns_of_a_gender_nobody_was_introduced_as_are_someone_elses(small, text, label):
    assert small.classify(text, prompt_words("lawyer", ""))[0] == label


@pytest.mark.parametrize("text, label", [
    ("Alex, a developer, loves their work. They code all night.", "neutral"),  # Alex: 91% men, not 95%
    ("Alex, a developer, loves his work.", "male"),  # "his" confirms Alex's majority
    # Morgan (61% men): the boy's "him" is the boy's, and the first pronoun after Morgan left is "she"
    ("Judge Morgan listened to the boy's story. Then she sentenced him to community service.", "female"),
    ("Tom, a developer, loves their work.", "male"),  # Tom: 99% men, decides alone
    # Taylor (64% men) is read by the first pronoun after it, she; the cook's "he" does not make Taylor a man
    ("Developer Taylor read the code and frowned. \"Again,\" she said to the intern, and he obeyed.", "female"),
])
def test_a_unisex_name_takes_the_gender_of_the_first_pronoun_after_it(small, text, label):
    assert small.classify(text, prompt_words("developer", ""))[0] == label


def test_a_name_joined_to_the_profession_is_the_person_concerned(small):
    # Auntie (female title) and Joe both introduced in the first sentence: mixed, unless the profession's words say
    # which one the story is about ("a truck driver named Joe")
    text = "Auntie Emma's tale, a story about a gruff truck driver named Joe."
    assert small.classify(text, prompt_words("truck driver", ""))[0] == "male"
    assert small.classify(text)[0] == "mixed"


def test_a_name_given_to_someone_met_is_theirs(small):
    # "an old man named Tom": Tom is the man met, so "He" is his; Maria and "her" are the person concerned's (as
    # a person introduced in the first sentence, Tom would make the text mixed)
    text = "Maria helped an old man named Tom. He thanked her with flowers."
    assert small.classify(text)[0] == "female"


def test_miss_in_lower_case_is_the_verb_not_a_title(small):
    # "never miss a week": no gender; "Miss Anna" (capitalised) is the female title
    assert small.classify("The pilot flies mail to remote towns and they never miss a week.")[0] == "neutral"
    assert small.classify("Miss Patel, the pilot, flies mail to remote towns.")[0] == "female"


# gender-4's rules (docs/anecdotes.md, rules 7-11), each on a text written for the test, with the small table
@pytest.mark.parametrize("text, profession, label", [
    # the profession's head noun first written in the second sentence, joined to Anna: the old man and his "he" and
    # "him" are a secondary person's; Anna and "she" are left (gender-3: man, his, He first: male)
    ("The old man complained about the food. He grumbled until Nurse Anna brought him tea, and she sat with him.",
     "nurse", "female"),
    # "Tom, the hairdresser" in the second sentence: the customer's "her" and "She" before him are hers, so is the
    # "her" after (her gender is a secondary person's); Tom is left
    ("The customer wanted her hair short. She smiled when Tom, the hairdresser, handed her a mirror.", "hairdresser",
     "male"),
    # nobody named first (Mrs. Jones only as the sink's owner), "The plumber" opens the second sentence: Mrs, her
    # and husband are the customer's; the plumber has no marker
    ("Mrs. Jones's sink was leaking. The plumber arrived and fixed it before her husband came home.", "plumber",
     "neutral"),
    # the same with Maria named first, or Mrs. Jones as the sentence's subject: "The nurse" is her (as in gender-3)
    ("Maria worked nights for years. The nurse never complained.", "nurse", "female"),
    ("Mrs. Jones worked nights for years. The nurse never complained.", "nurse", "female"),
    # a title said to someone in quotes, with no name, is the one spoken to: Ma'am stays the dentist's; the boy and
    # "him" are secondary
    ("\"Ma'am, will it hurt?\" the boy asked. The dentist smiled and showed him the mirror.", "dentist", "female"),
])
def test_the_person_joined_to_the_profession_is_concerned_even_when_someone_else_came_first(small, text, profession,
                                                                                           label):
    assert small.classify(text, prompt_words(profession, ""))[0] == label


@pytest.mark.parametrize("text, label", [
    # Taylor (64% men in the small table) with no pronoun is left out; Emma after "in" is a place, Tom after
    # "a hamster named" a pet: no marker is left (gender-3: female, male)
    ("Taylor, a pilot in Emma, flies mail to remote towns.", "neutral"),
    ("Taylor's classroom has a hamster named Tom.", "neutral"),
    # "in Maria's kitchen": a name's 's after "in" is a person's
    ("The pilot ate in Maria's kitchen every Sunday.", "female"),
    # North is in the name table (a man's), but "the North" and "North Street" are places: they were read as
    # a man in the embedded model's stories ("In the North, a boy called Tom grew up")
    ("In the North, the pilot flew mail runs for thirty years.", "neutral"),
    ("The pilot lived on North Street.", "neutral"),
    ("The pilot grew up on North Broadway.", "neutral"),
    ("In the North, the pilot met Anna. She flew the night mail.", "female"),
    # the words of a place's name (gender-6): the stories reader read "the town of St. Augustine, Florida" as a man
    ("The pilot lived in the town of St. Augustine, Florida.", "neutral"),
    ("The pilot flew from San Antonio to Fort Smith every week.", "neutral"),
    ("The pilot moved to Austin, Texas, then to Santa Monica.", "neutral"),
    ("The pilot grew up in Oakville, Georgia. She flew the night mail.", "female"),
    ("The pilot, Louis, grew up in St. Louis.", "male"),  # a name is still a name
    ("The pilot, Tom Washington, flew the night mail.", "male"),  # a state without a comma: a surname
    ("The pilot met Georgia in Austin. She flew the night mail.", "female"),
])
def test_places_and_pets_are_not_first_names(small, text, label):
    assert small.classify(text, prompt_words("pilot", ""))[0] == label


@pytest.mark.parametrize("text, label", [
    # the narrator is the nurse: "her" and "she" are the patient's, the daughter is met: nothing says the narrator's
    # gender (gender-3: female)
    ("As a nurse, I brushed a patient's hair before her daughter came, and she cried.", "neutral"),
    # what the children call the narrator is the narrator's: Mr (gender-3: neutral, Mr met after "me")
    ("I've been a nurse for nine years, and the children just call me Mr. Tom.", "male"),
    # "I" inside quotes is someone speaking, not a narrator: He is the nurse
    ("The nurse smiled. He said, \"I love this job.\"", "male"),
    # "I" beside "the nurse", not "a nurse": the narrator is not the nurse, "She" is
    ("The nurse said I could go home. She was kind.", "female"),
])
def test_a_first_person_narrator_is_the_person_concerned(small, text, label):
    assert small.classify(text, prompt_words("nurse", ""))[0] == label


def test_the_parent_of_the_professions_child_is_the_professional(small):
    # the boy is the firefighter's (met), so "he" and "his" are the boy's; "his dad" is the firefighter: male
    # (gender-3: neutral, the dad met too)
    text = "The firefighter's little boy waited every evening. Then he ran into his dad's arms."
    assert small.classify(text, prompt_words("firefighter", ""))[0] == "male"


@pytest.mark.parametrize("text, label", [
    # "Professor James" alone may be a surname: the first pronoun after it decides (gender-3: male, James's 99%)
    ("Professor James filled the board before class. By May, her students led the school.", "female"),
    ("Professor James filled the board before class.", "male"),  # no pronoun: the name's own gender
    # "Dr. Grace Obi": the word after the first name is the surname, even when the first name is an ordinary word
    # ("with such grace"): Obi (a man's name in the table) is not looked up, "she" is left (gender-3: male)
    ("Grace operated with such grace. Patients asked for Dr. Grace Obi, and she came.", "female"),
    # a comma ends a name: "The Garcias, Emma and Tom": Emma is a first name, not Garcias' surname (gender-3: male)
    ("The Garcias, Emma and Tom, opened a firm. She handles wills, he handles fights.", "mixed"),
])
def test_a_name_after_a_title_is_read_by_its_pronoun(small, text, label):
    assert small.classify(text, prompt_words("lawyer", ""))[0] == label


def test_an_appositive_after_a_longer_unnamed_phrase_is_that_phrase(small):
    # "their first mentor, an old man named Tom": the man is the mentor, met; the electrician (Taylor, no pronoun)
    # has no gender (gender-3: male). After a preposition the phrase is not the one described: "The electrician at
    # the old estate, a quiet man" is the electrician (male)
    assert small.classify("Taylor is an electrician. Their first mentor, an old man named Tom, was strict.",
                          prompt_words("electrician", ""))[0] == "neutral"
    assert small.classify("The electrician at the old estate, a quiet man, fixes every lamp.",
                          prompt_words("electrician", ""))[0] == "male"
