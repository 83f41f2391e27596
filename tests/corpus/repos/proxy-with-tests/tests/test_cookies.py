def test_encode():
    pass
