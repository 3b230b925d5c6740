"""The adapter every test runs on: a software one (CI's lavapipe or llvmpipe) unless
SATGPU_TEST_ADAPTER names another of satgpu.Gpu's choices ("auto": the best one, a GPU where
there is one)."""

import os

import pytest

import satgpu


@pytest.fixture(scope="session")
def adapter():
    return os.environ.get("SATGPU_TEST_ADAPTER", "software")


@pytest.fixture(scope="module")
def gpu(adapter):
    return satgpu.Gpu(adapter=adapter)
