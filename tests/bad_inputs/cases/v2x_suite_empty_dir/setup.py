from pathlib import Path


def setup(tmp: Path, case: Path) -> None:
    (Path(tmp) / "corpus").mkdir()
    (Path(tmp) / "corpus" / "notes.txt").write_text("not a scenario\n")
