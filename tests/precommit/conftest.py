def pytest_configure(config):
    config.addinivalue_line("markers", "slow: needs minutes (pre-commit builds a virtualenv); deselect with -m 'not slow'")
