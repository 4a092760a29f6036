"""`mjref score` as people and machines call it: a real subprocess, stdin and stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_data import shared_path

from referee.score_cli import score_case_line
from referee.scoring import PROFILE_NAMES
from rig.cli import main

TESTDATA = shared_path("testdata", "wmc-hands.jsonl")


def mjref(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rig.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_help_works() -> None:
    out = mjref("score", "--help")
    assert out.returncode == 0
    assert "--profile" in out.stdout and "JSON lines" in out.stdout


@pytest.mark.slow
def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "mjref"
    assert script.exists()
    out = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and "score" in out.stdout


def test_json_lines_answer_every_case_in_order() -> None:
    lines = TESTDATA.read_text().splitlines()
    out = mjref("score", "--profile", "zj33", "--json", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    cases = [json.loads(line) for line in lines]
    assert [a["id"] for a in answers] == [c["id"] for c in cases]
    for answer, case in zip(answers, cases, strict=True):
        assert answer["valid"] is True
        assert answer["total"] == case["expected_total_zj33"]
        assert set(answer) >= {"id", "valid", "total", "patterns"}
        for p in answer["patterns"]:
            assert set(p) == {"id", "name", "name_zh", "points", "count"}


def test_malformed_cases_get_an_error_and_the_rest_go_on() -> None:
    good = TESTDATA.read_text().splitlines()[0]
    stdin = "\n".join(
        [
            "{not json",
            json.dumps({"id": "bad-tile", "concealed": "12x", "win": "5s", "win_by": "self"}),
            good,
            "[1, 2]",
            json.dumps({"id": "five", "concealed": "5555s123m456m78p", "win": "5s"}),
        ]
    )
    out = mjref("score", "--json", stdin=stdin)
    assert out.returncode == 1  # done, but some cases could not be scored
    assert out.stderr == "mjref score: 4 of 5 case(s) could not be scored\n"
    answers = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(answers) == 5
    assert answers[0] == {"id": "line 1", "error": answers[0]["error"]}
    assert "not valid JSON" in answers[0]["error"]
    assert "'x'" in answers[1]["error"] and answers[1]["id"] == "bad-tile"
    assert answers[2]["id"] == "ZJ01" and answers[2]["total"] == 160
    assert "expected a JSON object" in answers[3]["error"]
    assert answers[4]["id"] == "five" and "error" in answers[4]


def test_wmc_chicken_hand_is_not_valid() -> None:
    case = {
        "id": "chicken",
        "melds": [{"type": "pung", "tiles": "777p"}, {"type": "chow", "tiles": "234m"}],
        "concealed": "456s12s99m",
        "win": "3s",
        "win_by": "discard",
        "seat": "E",
    }
    answer = json.loads(mjref("score", "--json", stdin=json.dumps(case)).stdout)
    assert answer["valid"] is False and "WMC-12.3" in answer["reason"]


def test_one_hand_for_people() -> None:
    out = mjref("score", "234m234m666p88s34s", "--win", "5s", "--discard", "--seat", "E")
    assert out.returncode == 0, out.stderr
    assert "Two Identical Sequences" in out.stdout and "一般高" in out.stdout
    assert "Total: 20 points" in out.stdout
    assert "each of the three pays 20" in out.stdout


def test_one_hand_json_and_melds() -> None:
    out = mjref(
        "score", "234m678m1p", "--concealed-kong", "5555p", "--meld", "9999s",
        "--win", "1p", "--self", "--flag", "win_on_kong", "--json",
    )  # fmt: skip
    answer = json.loads(out.stdout)
    assert answer["total"] == 30
    assert {p["id"] for p in answer["patterns"]} == {"4.3.2", "9.2"}


def test_one_hand_errors_are_clear() -> None:
    out = mjref("score", "234m234m666p88s3x", "--win", "5s")
    assert out.returncode == 2
    assert "unexpected character 'x'" in out.stderr and "Traceback" not in out.stderr


def test_no_tiles_without_json_is_a_usage_error() -> None:
    assert main(["score"]) == 2


def test_exit_codes_a_script_can_trust() -> None:
    good = TESTDATA.read_text().splitlines()[0]
    assert mjref("score", "--json", stdin=good + "\n").returncode == 0
    every_line_failed = mjref("score", "--json", stdin="{not json\n[]\n")
    assert every_line_failed.returncode == 1
    assert "2 of 2 case(s) could not be scored" in every_line_failed.stderr
    nothing = mjref("score", "--json", stdin="\n\n")
    assert nothing.returncode == 2
    assert nothing.stderr == "mjref score: no hand case on stdin (expected JSON lines)\n"


def test_a_line_that_is_not_utf8_is_one_failed_case() -> None:
    good = TESTDATA.read_bytes().splitlines()[0]
    out = subprocess.run(
        [sys.executable, "-m", "rig.cli", "score", "--json"],
        input=b"\xff\xfe{}\n" + good + b"\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 1 and b"Traceback" not in out.stderr
    first, second = (json.loads(line) for line in out.stdout.splitlines())
    assert first == {"id": "line 1", "error": "line 1 is not UTF-8 text (byte 0)"}
    assert second["id"] == "ZJ01" and second["total"] == 160


def test_flowers_out_of_range_is_a_usage_error() -> None:
    out = mjref("score", "234m234m666p88s34s", "--flowers", "9")
    assert out.returncode == 2 and "--flowers: 9: expected an integer from 0 to 8" in out.stderr


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_fields = {
    "id": _json,
    "concealed": st.sampled_from(["234m234m666p88s34s", "11m", "", "12x"]) | _json,
    "win": st.sampled_from(["5s", "C", "5s5s"]) | _json,
    "win_by": st.sampled_from(["self", "discard"]) | _json,
    "seat": st.sampled_from(["E", "S", "Q"]) | _json,
    "prevalent": _json,
    "melds": st.lists(
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["chow", "pung", "kong"]) | _json,
                "tiles": st.sampled_from(["123p", "CCC", "9999s"]) | _json,
            }
        ),
        max_size=5,
    )
    | _json,
    "flags": st.lists(st.sampled_from(["win_on_kong", "last_tile", "?"]) | _json) | _json,
    "flowers": st.integers(-3, 12) | _json,
}


@settings(max_examples=300)
@given(case=st.fixed_dictionaries({}, optional=_fields), profile=st.sampled_from(PROFILE_NAMES))
@pytest.mark.slow
def test_any_case_line_gets_an_answer_never_an_exception(
    case: dict[str, object], profile: str
) -> None:
    answer = score_case_line(json.dumps(case).encode(), 1, profile)
    assert "error" in answer or {"valid", "total", "patterns"} <= set(answer)


@settings(max_examples=200)
@given(raw=st.binary(max_size=64) | st.text(max_size=64).map(str.encode))
def test_any_bytes_get_an_answer(raw: bytes) -> None:
    assert set(score_case_line(raw, 3, "wmc")) >= {"id"}
