#!/usr/bin/python3
"""Fills the unfinished messages of a Qt Linguist catalogue from a JSON file of translations.

    cmake --build build/dev --target update_translations      # lupdate adds the new messages
    /usr/bin/python3 tools/fill_translations.py resources/translations/attnviz_zh_CN.ts new.json

new.json maps each English source text, exactly as written in the code (not XML-escaped), to its
translation: a string, or a list of strings for a message with %n (one per plural form; Chinese
has one). Only messages still marked unfinished are touched, and each is marked finished; a
source in the JSON that the catalogue does not hold unfinished is reported, so that a typo does
not pass silently. i18n.catalogue_complete fails while any message is left unfinished.
"""
import json
import re
import sys
from xml.sax.saxutils import escape, unescape

ENTITIES = {"'": "&apos;", '"': "&quot;"}  # beyond &, < and >, as lupdate writes them
UNESCAPED = {v: k for k, v in ENTITIES.items()}
# One message: its source (no raw "<" inside: the catalogue escapes it), optional comments, and an
# unfinished translation.
MESSAGE = re.compile(r'(<message( numerus="yes")?>\s*<source>([^<]*)</source>\s*'
                     r'(?:<(?:extra)?comment>[^<]*</(?:extra)?comment>\s*)*)'
                     r'<translation type="unfinished">.*?</translation>', re.S)


def main(catalogue, translations_file):
    with open(translations_file, encoding="utf-8") as f:
        translations = json.load(f)
    with open(catalogue, encoding="utf-8") as f:
        text = f.read()
    used = set()

    def fill(match):
        head, plural, source = match.group(1), match.group(2), unescape(match.group(3), UNESCAPED)
        if source not in translations:
            return match.group(0)
        used.add(source)
        value = translations[source]
        if plural:
            forms = value if isinstance(value, list) else [value]
            body = "".join(f"\n            <numerusform>{escape(v, ENTITIES)}</numerusform>"
                           for v in forms)
            return f"{head}<translation>{body}\n        </translation>"
        return f"{head}<translation>{escape(value, ENTITIES)}</translation>"

    text = MESSAGE.sub(fill, text)
    with open(catalogue, "w", encoding="utf-8") as f:
        f.write(text)
    missing = sorted(set(translations) - used)
    for source in missing:
        print(f"not unfinished in the catalogue: {source[:80]!r}", file=sys.stderr)
    left = text.count('type="unfinished"')
    print(f"filled {len(used)}; {left} still unfinished")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
