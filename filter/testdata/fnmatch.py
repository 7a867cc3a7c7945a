#!/usr/bin/env python3
"""Writes fnmatch.txt: patterns, keys and what Python's fnmatch.fnmatchcase
(what the AWS CLI matches --include and --exclude with, on POSIX) says of
them. TestMatchAgreesWithFnmatch reads it. Run from this directory:

    python3 fnmatch.py > fnmatch.txt
"""
import fnmatch
import itertools

patterns = [
    "*", "**", "*.json", "sub/*", "*/sub/*", "a?c", "?", "??", "[ab].json", "[!ab].json",
    "x[!0-9]y", "log-[0-9][0-9].txt", "[a-]", "[-a]", "[]a]", "[!]a]", "[z-a]", "[z-ab]",
    "[a-c-e]", "[--0]", "a[b", "a]b", "[", "]", "[!]", "[]", "[]]", "[!]]", "a\\*", "a\\[b]",
    "[^a]", "[a^]", "[[]", "[\\]", "*[*]*", "*?*", "?*?", "a*b*c", "*a*a*", "[é]", "?é",
    "[a-zA-Z0-9]*", "[!/]*", "*/", "/", "/*", "dir/*.json", "[*]", "[?]",
]
keys = [
    "", "a", "b", "ab", "abc", "a/c", "a.json", "b.json", "c.json", "[ab].json", "x1y", "xay",
    "x/y", "xy", "log-07.txt", "log-7.txt", "-", "]", "[", "^", "\\", "a*", "a\\x", "a\\b",
    "a[b", "a]b", "é", "aé", "sub/x", "sub/deep/h.tmp", "x/sub/y", "aXbYc", "aaa", "a/a/a",
    "dir/a.json", "dir/s/b.json", "/", "/x", "x/", "*", "?", "0", "z", "e", "d",
]
for p, k in itertools.product(patterns, keys):
    print("%s\t%s\t%d" % (p, k, fnmatch.fnmatchcase(k, p)))
