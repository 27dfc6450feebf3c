import pytest


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray with two CPUs for the module's tests, shut down after them."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
