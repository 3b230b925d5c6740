"""The adapter every test runs on: a software one (CI's lavapipe or llvmpipe) unless
SATGPU_TEST_ADAPTER names another of satgpu.Gpu's choices ("auto": the best one, a GPU where
there is one)."""

import os

import pytest

import satgpu


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "one_backend: CI runs it on one backend only; it checks what no adapter changes (a model's flows "
        "against JuPedSim's, where the GPU model's bytes are checked against its reference on both "
        "backends by the Rust tests; Ray's handling of dead tiles)",
    )


@pytest.fixture(scope="session")
def adapter():
    return os.environ.get("SATGPU_TEST_ADAPTER", "software")


@pytest.fixture(scope="module")
def gpu(adapter):
    return satgpu.Gpu(adapter=adapter)
