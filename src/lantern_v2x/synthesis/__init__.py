"""Language-driven scenario synthesis for LAST-V2X (issue 14): specification, parsing, verification,
grounding, refinement and the synthesis loop (Algorithm 1). Pure logic; see docs/v2x_synthesis.md.

Nothing is imported here on purpose: each module is imported by its full name, so the package
has no import-order coupling between its parts.
"""
