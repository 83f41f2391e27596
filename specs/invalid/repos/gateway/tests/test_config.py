import pytest

from gateway import GatewayConfig


def test_config_defaults():
    config = GatewayConfig.from_mapping({"upstream": "http://backend"})
    assert config.timeout == 30.0
    assert config.max_header_bytes == 4096


def test_config_requires_upstream():
    with pytest.raises(ValueError):
        GatewayConfig.from_mapping({"timeout": 5})


def test_config_rejects_unknown_keys():
    with pytest.raises(ValueError):
        GatewayConfig.from_mapping({"upstream": "http://backend", "colour": "red"})
