import os
import pathlib

import pytest

# The repository root (examples/, testdata/): the tests run from an installed
# wheel, so the package's own location says nothing about it.
ROOT = pathlib.Path(os.environ.get("DRA_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def root() -> pathlib.Path:
    return ROOT
