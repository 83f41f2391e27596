MAX_HEADER = 4096


def encode(cookies):
    return "; ".join(f"{k}={v}" for k, v in cookies.items())
