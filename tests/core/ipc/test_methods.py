"""The socket's methods: every one has its params model, and each model refuses what the
method does not take, naming the field."""

from __future__ import annotations

import pytest

from core.errors import ErrorCode, ProtocolError
from core.ipc.methods import (
    APP_SHOW,
    DECISION_PENDING,
    DECISION_PRESENT,
    HELLO,
    JOURNAL_CHANGED,
    PARAMS_MODELS,
    DecisionPresentParams,
    DecisionPresentResult,
)
from core.ipc.protocol import Request, parse_params


def request(method: str, **params: object) -> Request:
    return Request(jsonrpc="2.0", id=1, method=method, params=params)


def test_every_method_has_its_params_model() -> None:
    methods = {HELLO, DECISION_PRESENT, DECISION_PENDING, APP_SHOW, JOURNAL_CHANGED}
    assert set(PARAMS_MODELS) == methods


def test_present_takes_exactly_one_of_a_proposal_and_a_decision_id() -> None:
    both = request(
        DECISION_PRESENT, proposal={}, decision_id="d-1", workspace="/srv/p", session_id="s"
    )
    with pytest.raises(ProtocolError) as caught:
        parse_params(DecisionPresentParams, both)
    assert (caught.value.code, caught.value.field) == (ErrorCode.INVALID_PARAMS, "proposal")
    one = request(DECISION_PRESENT, decision_id="d-1", workspace="/srv/p", session_id="s")
    assert parse_params(DecisionPresentParams, one).decision_id == "d-1"


def test_app_show_of_a_decision_needs_its_id() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_params(PARAMS_MODELS[APP_SHOW], request(APP_SHOW, view="decision"))
    assert caught.value.field == "decision_id"


def test_a_result_tolerates_fields_a_newer_app_adds() -> None:
    result = DecisionPresentResult.model_validate(
        {"status": "pending", "decision_id": "d-1", "added_later": True}
    )
    assert result.status == "pending"
