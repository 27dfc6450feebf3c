import pytest

from tests.models.foundation.checkpoints import tiny_chronos2, tiny_tirex


@pytest.fixture(scope="module")
def chronos_weights(tmp_path_factory):
    return tiny_chronos2(tmp_path_factory.mktemp("chronos2"))


@pytest.fixture(scope="module")
def tirex_weights(tmp_path_factory):
    return tiny_tirex(tmp_path_factory.mktemp("tirex"))
