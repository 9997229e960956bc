#!/usr/bin/env python3
"""Prints the ThreadSanitizer reports of a test log, each trimmed to the frames that matter.

Usage: tsan-summary.py LOG ROOT [MAX_REPORTS]

A report keeps every part ThreadSanitizer wrote (the access, the previous access, the mutexes held, where the memory
came from, where each thread was created), and in each stack the first two frames and every frame of the tree at ROOT
(Sources/, Tests/), with paths relative to ROOT; a run of other frames (NIO, Foundation, the runtime) becomes one
"…" line. Swift names are demangled (`swift demangle`). Reports that end at the same place and come from the same
places are printed once, with their count. At most MAX_REPORTS (default 5) are printed in full, the others by their
SUMMARY line.
"""
import re
import subprocess
import sys

# A stack frame: "    #3 name /path/file.swift:12:5 (module+0x1234) (BuildId: …)".
FRAME = re.compile(r"^\s+#(\d+) (.*?)(?: \(([^()]*)\+0x[0-9a-f]+\))?(?: \(BuildId: [0-9a-f]+\))?\s*$")
# Frames of our own code shown per stack, at most.
MAX_OWN_FRAMES = 8


def demangled(text):
    try:
        return subprocess.run(["swift", "demangle", "--simplified"], input=text, capture_output=True, text=True,
                              check=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return text


def reports(lines):
    """The reports of a log, each its lines from WARNING to SUMMARY."""
    current = None
    for line in lines:
        if "WARNING: ThreadSanitizer:" in line:
            current = [line[line.index("WARNING: ThreadSanitizer:"):]]
        elif current is not None:
            current.append(line)
            if line.startswith("SUMMARY: ThreadSanitizer:"):
                yield current
                current = None
    if current is not None:
        yield current + ["(the report ends here: the log was cut)"]


def trimmed(report, root):
    """The report with each stack cut to its first two frames and the tree's own frames."""
    prefix = root.rstrip("/") + "/"
    out, skipped, own = [], False, 0
    for line in report:
        match = FRAME.match(line)
        if not match:
            if skipped:
                out.append("      …")
            skipped, own = False, 0
            if line.strip():
                out.append(re.sub(r" \(pid=\d+\)", "", line).replace(prefix, ""))
            continue
        number, rest, module = int(match.group(1)), match.group(2), match.group(3)
        ours = prefix + "Sources/" in rest or prefix + "Tests/" in rest
        if number < 2 or (ours and own < MAX_OWN_FRAMES):
            if skipped:
                out.append("      …")
                skipped = False
            if ours:
                out.append(f"    #{number} {rest.replace(prefix, '')}")
                own += 1
            else:
                # Another's frame: its function and module (the path is the runtime's or a dependency's).
                name = re.sub(r" (/\S+|<null>)$", "", rest)
                out.append(f"    #{number} {name}" + (f" ({module})" if module else ""))
        else:
            skipped = True
    if skipped:
        out.append("      …")
    return out


def key(report):
    """What makes two reports the same race: the kind, each stack's own frames, the SUMMARY location."""
    return tuple(line for line in report if not re.match(r"\s+(Thread T\d+|Location is|Mutex M\d+)", line)
                 and "0x" not in line)


def main():
    log, root = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with open(log, errors="replace") as file:
        found = list(reports(file.read().splitlines()))
    if not found:
        return
    text = demangled("\n".join("\n".join(report) + "\n\x00" for report in found))
    unique = {}
    for report in text.split("\x00"):
        lines = trimmed(report.strip("\n").splitlines(), root)
        if lines:
            unique.setdefault(tuple(key(lines)), [lines, 0])[1] += 1
    for index, (lines, count) in enumerate(unique.values()):
        if index < limit:
            if count > 1:
                lines = lines[:1] + [f"  (reported {count} times)"] + lines[1:]
            print("\n".join(lines))
        else:
            print(next((line for line in lines if line.startswith("SUMMARY:")), lines[0]))


if __name__ == "__main__":
    main()
