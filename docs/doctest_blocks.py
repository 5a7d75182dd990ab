"""A griffe extension for `make docs`: the docstrings' `>>>` examples are shown as Python code.

The library writes its examples as doctests at the docstring's own indentation (the test suite runs them);
Markdown would read them as prose (and `x[:, :3]` as a link). Each run of `>>>`/`...` lines and the output
lines after them, up to a blank line, becomes a fenced `pycon` block.
"""

import griffe


def fence_doctests(text):
    lines, out, block = text.splitlines(), [], []
    for line in [*lines, ""]:
        starts = line.lstrip().startswith((">>>", "..."))
        if starts or (block and line.strip()):
            block.append(line)
            continue
        if block:
            indent = block[0][: len(block[0]) - len(block[0].lstrip())]
            out += [f"{indent}```pycon", *block, f"{indent}```"]
            block = []
        out.append(line)
    return "\n".join(out[:-1])


class DoctestBlocks(griffe.Extension):
    def on_object(self, *, obj, **kwargs):
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
