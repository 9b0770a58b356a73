"""Writes walkthrough.ipynb (kept as a script so the notebook's source reviews as text).

Run: python notebooks/make_notebook.py
"""

from pathlib import Path

import nbformat as nbf

md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
cells = [
    md("# A small stereotype study with stereoprobe\n\n"
       "This notebook runs the method of Busker, Choenni & Bargh (2023) end to end from Python: "
       "the probes, a small collection on the embedded local model, the sentiment tables as "
       "pandas DataFrames, and the figures. The test suite executes it, so it breaks loudly "
       "when the API changes.\n\n"
       "*The outputs contain stereotypes, some offensive: that is what is being measured.*"),
    code("%matplotlib inline\nimport contextlib, io, os, shutil, tempfile\nfrom pathlib import Path\n\n"
         "import pandas as pd\nimport stereoprobe\n\n"
         "pd.set_option('display.precision', 1)   # shares are shown rounded; the tables keep full precision\n"
         "EXAMPLE = Path('example_run')          # collected by the embedded model, kept in the repo\n"
         "WORK = Path(tempfile.mkdtemp())        # scratch files\n"
         "# The briefing goes next to this notebook, where you can open it (STEREOPROBE_NOTEBOOK_OUT moves it).\n"
         "OUT = Path(os.environ.get('STEREOPROBE_NOTEBOOK_OUT', 'walkthrough_output')).resolve()\n\n\n"
         "@contextlib.contextmanager\n"
         "def quiet_model_logs():\n"
         "    \"\"\"Hide llama.cpp's log lines: it writes them to file descriptor 2 and through Python logging.\"\"\"\n"
         "    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)\n"
         "    os.dup2(devnull, 2)\n"
         "    try:\n"
         "        with contextlib.redirect_stderr(io.StringIO()):\n"
         "            yield\n"
         "    finally:\n"
         "        os.dup2(saved, 2)\n"
         "        os.close(saved)\n"
         "        os.close(devnull)\n\n\n"
         "stereoprobe.__version__"),
    md("## 1. Probes\n\nNine categories, 382 social groups, six templates (three questions, three "
       "statements; countries have their own): 2,292 probes."),
    code("probes = pd.DataFrame([p.to_dict() for p in stereoprobe.load_probes()])\n"
         "print(len(probes), 'probes')\n"
         "probes.groupby('category').agg(groups=('group', 'nunique'), probes=('probe_id', 'size'))"),
    code("probes[probes.group == 'old people'][['probe_id', 'template', 'format', 'text']]"),
    md("## 2. Collect a few answers\n\n"
       "With no model and no endpoint, `run_collect` uses the embedded Gemma 3 270M offline, in "
       "next-word mode: the ten most probable next words after the probe text, with their "
       "probabilities. (With `model=` and an API key it asks a chat model, the paper's method.)"),
    code("with quiet_model_logs():   # errors still raise; only the model's log lines are hidden\n"
         "    small = stereoprobe.run_collect(groups=['Sikhs'], out=WORK / 'sikhs', progress=False)\n"
         "print(small.summary())\n"
         "records = stereoprobe.read_completions(WORK / 'sikhs')\n"
         "pd.DataFrame([{'probe': r.prompt, 'words': ', '.join(r.words)} for r in records])"),
    md("## 3. Sentiment: the paper's Table 4\n\n"
       "The example run in `example_run/` holds the political and religion categories (114 "
       "probes), collected by the same embedded model with `stereoprobe collect --category "
       "political --category religion --out notebooks/example_run`. `score` maps every word to "
       "NRC sentiment (lexicon, then lemma, then the majority of its WordNet synonyms)."),
    code("from stereoprobe.studies.fillin.sentiment import score, write_outputs\n\n"
         "result = score(EXAMPLE)\n"
         "result.table4"),
    code("result.groups.sort_values('negative', ascending=False)"
         "[['category', 'group', 'negative', 'question_negative', 'statement_negative', 'n_words']]"),
    md("Where did each label come from? `source` is `lexicon`, `lemma`, `synonyms` (with the voters) "
       "or `none`."),
    code("result.words.head(15)"),
    code("{k: result.coverage[k] for k in ('unique_words', 'in_lexicon', 'via_lemma', 'via_synonyms', 'ignored')}"),
    md("The paper reports that leaving out the synonym fallback changed little. Check it here:"),
    code("without = score(EXAMPLE, synonyms=False)\n"
         "pd.DataFrame({'with synonyms': result.table4.set_index('category').negative,\n"
         "              'without': without.table4.set_index('category').negative})"),
    md("## 4. Figures\n\nThe report stage reads the files `stereoprobe sentiment` writes; copy the "
       "example run to a scratch folder and write them there."),
    code("run = WORK / 'example'\nshutil.copytree(EXAMPLE, run)\nwrite_outputs(result, run / 'sentiment')\n\n"
         "from stereoprobe.studies.fillin.report import load_sentiment, figure_formats, figure_templates, figure_cloud, build_report\n"
         "data = load_sentiment(run)\n"
         "figure_formats(data)   # Figure 2 of the paper"),
    code("figure_templates(data, 'political')   # Figure 3, for one category"),
    code("figure_cloud(data, 'political', 'capitalists', by_format=True)   # Figure 4: questions vs statements"),
    md("## 5. Reading the results\n\n"
       "**How sure are these numbers?** Each group has six probes (three questions, three statements), "
       "ten words each. A share from a handful of probes moves a lot when one answer changes: the briefing "
       "shows how many probes each share rests on, never shows a share from a single probe as a number, and "
       "shows intervals (\"65% (52 to 77)\") when `stereoprobe sentiment` has computed them. Do not read the "
       "order of two groups a few points apart as a finding.\n\n"
       "**Comparable to the paper?** No. This example was collected by a small base model running offline "
       "(Gemma 3 270M) in next-word mode: the ten most probable next words, not a chat answer. It is not "
       "ChatGPT, and its shares are not comparable to Table 4 of Busker, Choenni & Bargh (2023), "
       "*Stereotypes in ChatGPT: an empirical study*, ICEGOV 2023 (doi:10.1145/3614321.3614325). It shows how "
       "the method works.\n\n"
       "**What the lexicon can and cannot say.** NRC EmoLex labels words without context (\"radical\" is "
       "positive whatever group it describes). Words not in the lexicon are labelled by the majority of their "
       "WordNet synonyms; the briefing marks them with * and shows the voters, and flags labels that a single "
       "synonym decided. Neutral words, words marked both positive and negative, and words not found are "
       "left out of the shares."),
    code("from stereoprobe.studies.fillin.report.context import coverage_text, key_findings, model_note\n\n"
         "print(coverage_text(data))\n"
         "for line in key_findings(data):\n"
         "    print('-', line)"),
    code("# The probes behind one group's shares, with the model's words and their labels\n"
         "pd.DataFrame([{'probe': p['prompt'], 'words': ', '.join(f'{w} ({lab})' for w, lab in p['words'])}\n"
         "              for p in data.probes_of('religion', 'Sikhs')])"),
    md("## 6. Briefings\n\n`build_report` writes the figures and a self-contained HTML briefing per "
       "category: key findings first, every share with the probes behind it, the evidence per group, the "
       "settings at the end. The `briefing` folder holds everything it needs; zip it to send it."),
    code("from IPython.display import HTML\n\n"
         "report = build_report(run, out=OUT)\n"
         "index = os.path.relpath(OUT / 'briefing' / 'index.html')\n"
         "print(f'{len(report.briefing)} briefing files; open {index} in a browser')\n"
         "HTML(f'<a href=\"{index}\" target=\"_blank\">Open the briefing</a>')"),
    code("sorted(p.name for p in (OUT / 'briefing').glob('*.html'))"),
]
nb = nbf.v4.new_notebook(cells=cells, metadata={
    "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
    "language_info": {"name": "python"},
})
nbf.write(nb, Path(__file__).with_name("walkthrough.ipynb"))
