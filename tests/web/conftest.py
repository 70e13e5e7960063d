"""Fixtures for the web tests: the app, a client, and a controller client that holds the PIN."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.fake_service import FakeService
from web.app import create_app


@pytest.fixture
def fake_service() -> FakeService:
    return FakeService()


@pytest.fixture
def app(fake_service: FakeService) -> Flask:
    return create_app({"TESTING": True, "REFEREE_SERVICE": fake_service, "REFEREE_PIN": "2468", "STREAM_FPS": 100.0})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def csrf_of(client: FlaskClient) -> str:
    """Load the play page and read the CSRF token from its meta tag."""
    page = client.get("/").get_data(as_text=True)
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert match, "the page carries a CSRF token"
    return match.group(1)


@pytest.fixture
def controller(client: FlaskClient) -> tuple[FlaskClient, dict[str, str]]:
    """A client unlocked with the PIN, and the headers its requests need."""
    headers = {"X-CSRF-Token": csrf_of(client)}
    response = client.post("/api/login", json={"pin": "2468"}, headers=headers)
    assert response.status_code == 200
    return client, headers
