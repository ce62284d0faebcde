import pathlib
def setup(tmp: pathlib.Path, case: pathlib.Path) -> None:
    ckpt = tmp / "ckpt"  # weights without config.json: a copy that stopped half-way
    ckpt.mkdir()
    (ckpt / "model.safetensors").write_bytes(b"\0" * 64)
