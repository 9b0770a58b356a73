"""ChatBackend and make_backend against FakeOpenAI on 127.0.0.1: answers, attempts,
usage, refusals, errors that stop a run, and where the API key comes from."""

from __future__ import annotations

import threading

import pytest
from conftest import TEST_KEY
from fake_openai import REFUSAL, answer_words, reply_text

from stereoprobe.studies.fillin.parse import parse_reply

from stereoprobe.backends import make_backend, resolve_api_key
from stereoprobe.backends.chat import DEFAULT_INSTRUCTION, ChatBackend
from stereoprobe.errors import BackendError, DataError
from stereoprobe.records import Probe

OLD = Probe("55ca1ffe4e01", "age", "old people", "why_are_so", "question", "why are old people so ...")
YOUNG = Probe("id-young", "age", "young people", "are_so", "statement", "young people are so ...")


def backend(server, **kw) -> ChatBackend:
    return ChatBackend(model="fake-chat", api_key=TEST_KEY, base_url=server.base_url,
                       **{"max_retries": 1, "timeout": 5.0, **kw})


def test_ask_returns_the_servers_words_raw_reply_and_usage(fake_openai):
    b = backend(fake_openai)
    answer = b.ask(OLD)
    prompt = DEFAULT_INSTRUCTION.replace("{probe}", OLD.text)
    assert b.prompt(OLD) == prompt and prompt.endswith("Sentence: why are old people so ...")
    assert answer.words == []  # the backend returns the reply; collect parses it
    assert answer.raw == reply_text(answer_words(prompt))
    assert parse_reply(answer.raw, OLD.text, OLD.group).words == answer_words(prompt)
    assert (answer.refused, answer.probabilities) == (False, None)
    assert answer.response == {"model": "fake-chat", "system_fingerprint": None}
    assert answer.usage["prompt_tokens"] == len(prompt.split())
    assert answer.usage["completion_tokens"] == 20 and answer.usage["total_tokens"] == len(prompt.split()) + 20
    assert b.attempts_of_last_ask() == 1
    (seen,) = fake_openai.asked()
    assert seen.body["messages"] == [{"role": "user", "content": prompt}]
    b.close()


def test_describe_has_the_settings_and_never_the_key(fake_openai):
    b = backend(fake_openai, temperature=0.3, instruction="Words for {probe}")
    d = b.describe()
    assert d == {
        "backend": "openai-chat",
        "model": "fake-chat",
        "endpoint": fake_openai.base_url + "/",
        "temperature": 0.3, "max_tokens": 300, "top_p": 1.0,
        "instruction": "Words for {probe}",
        "debias": None,
        "timeout": 5.0,
        "max_retries": 1,
        "reply_logprobs": 5,
    }
    assert TEST_KEY not in repr(d)


def test_attempts_are_counted_per_thread(fake_openai):
    fake_openai.add_fault("429", match=OLD.text, times=1, retry_after=0.3)
    b = backend(fake_openai)
    attempts = {}

    def ask(probe):
        b.ask(probe)
        attempts[probe.group] = b.attempts_of_last_ask()

    threads = [threading.Thread(target=ask, args=(p,)) for p in (OLD, YOUNG)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert attempts == {"old people": 2, "young people": 1}


def test_refusals_in_the_content_or_the_refusal_field(fake_openai):
    fake_openai.refuse_marker = "old people"
    answer = backend(fake_openai).ask(OLD)  # a refusal in the text: the parser finds it
    assert (answer.words, answer.refused, answer.raw) == ([], False, REFUSAL)
    assert parse_reply(answer.raw).refused
    fake_openai.refusal_field = True  # content null, message.refusal set
    answer = backend(fake_openai).ask(OLD)
    assert (answer.words, answer.refused, answer.raw) == ([], True, REFUSAL)
    assert backend(fake_openai).ask(YOUNG).refused is False


def test_a_wrong_key_is_a_backend_error_without_the_key(fake_openai):
    b = ChatBackend(model="fake-chat", api_key="sk-wrong-key-987", base_url=fake_openai.base_url, max_retries=3)
    with pytest.raises(BackendError, match=r"rejected the API key \(401\)") as info:
        b.ask(OLD)
    assert "sk-wrong-key-987" not in str(info.value)
    assert len(fake_openai.seen) == 1  # a 401 is not retried


def test_an_unknown_model_is_a_backend_error(fake_openai):
    b = ChatBackend(model="gpt-nope", api_key=TEST_KEY, base_url=fake_openai.base_url, max_retries=3)
    with pytest.raises(BackendError, match=r"Model 'gpt-nope' was not found .* \(404\)"):
        b.ask(OLD)
    assert [s.outcome for s in fake_openai.seen] == ["404"]


def test_a_closed_port_raises_connection_error(fake_openai):
    port = fake_openai.port
    fake_openai.stop()
    b = ChatBackend(model="fake-chat", api_key=TEST_KEY, base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(ConnectionError, match="connection failed"):
        b.ask(OLD)
    assert b.attempts_of_last_ask() == 1


# -- make_backend and the key ---------------------------------------------------------


def test_loopback_needs_no_key(fake_openai, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake_openai.api_key = None  # accept any key
    b = make_backend(model="fake-chat", base_url=fake_openai.base_url, max_retries=0)
    assert isinstance(b, ChatBackend) and len(parse_reply(b.ask(OLD).raw).words) == 10
    assert resolve_api_key(fake_openai.base_url, None) == "not-needed"


def test_the_key_comes_from_the_named_variable(fake_openai, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_KEY", f"  {TEST_KEY}\n")
    b = make_backend(model="fake-chat", base_url=fake_openai.base_url, api_key_env="MY_KEY", max_retries=0)
    assert len(parse_reply(b.ask(OLD).raw).words) == 10  # the server checked the bearer token (stripped)
    assert TEST_KEY not in repr(b.describe())


def test_a_remote_endpoint_without_a_key_fails_before_any_request(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(BackendError, match=r"^No API key: set OPENAI_API_KEY in the environment"):
        make_backend(model="gpt-4o-mini", base_url="https://api.example.invalid/v1")
    with pytest.raises(BackendError, match="No API key"):
        make_backend(model="gpt-4o-mini")  # OpenAI itself


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(model="m", base_url="ftp://127.0.0.1/v1"), "is not an http"),
        (dict(base_url="http://127.0.0.1:9/v1"), "--base-url needs --model"),
        (dict(model="m", base_url="http://127.0.0.1:9/v1", mode="poem"), "Unknown mode 'poem'"),
        (dict(mode="chat"), "cannot chat"),
    ],
)
def test_make_backend_rejects_bad_settings(kwargs, message):
    with pytest.raises(DataError, match=message):
        make_backend(**kwargs)
