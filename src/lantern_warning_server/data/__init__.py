"""Data files of the warning server (templates, paraphrases): a package so they ship in wheels."""
