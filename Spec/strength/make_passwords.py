#!/usr/bin/env python3
"""Writes Spec/strength/passwords.txt: the shared list the strength estimator is compared on.

Deterministic (fixed seed); words come from Tresor's own data files. Categories: common passwords and
words, capitalised and suffixed variants, l33t, dates, keyboard walks, repeats and sequences,
passphrases, random strings. One password a line, none longer than 64 characters, no tabs.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "Sources", "TresorData", "Resources"))


def words(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def main():
    rng = random.Random(20261123)
    pw = words("zxcvbn/passwords.txt")
    en = words("zxcvbn/english_wikipedia.txt")
    tv = words("zxcvbn/us_tv_and_film.txt")
    names = words("zxcvbn/female_names.txt") + words("zxcvbn/male_names.txt")
    surnames = words("zxcvbn/surnames.txt")
    eff = words("eff_large_wordlist.txt")
    out = []

    def add(p):
        if p and len(p) <= 64 and "\t" not in p and p not in out:
            out.append(p)

    def ranked(lst, top=None):
        """A word at a log-uniform rank, so the top of each list is well represented."""
        n = min(len(lst), top or len(lst))
        return lst[min(n - 1, int(n ** rng.random()) - 1)]

    def alpha(lst, minlen=4):
        while True:
            w = ranked(lst)
            if w.isalpha() and len(w) >= minlen:
                return w

    # Common passwords, words and names as they are.
    for p in ["123456", "password", "qwerty", "letmein", "dragon", "monkey", "hunter2", "iloveyou", "trustno1",
              "Summer2024!", "Tr0ub4dor&3", "P@ssw0rd", "correcthorsebatterystaple", "Password1", "Welcome1!"]:
        add(p)
    for _ in range(110):
        add(ranked(pw))
    for lst in (en, tv, names, surnames):
        for _ in range(25):
            add(alpha(lst))
    # Capitalised and suffixed variants.
    suffixes = ["1", "12", "123", "!", "1!", "2024", "2023!", "99", "007", "#1", "69", "2k", "$"]
    for _ in range(150):
        w = alpha(rng.choice([pw, en, names, tv]))
        style = rng.randrange(4)
        w = w.capitalize() if style == 0 else w.upper() if style == 1 else w if style == 2 else w[:-1] + w[-1].upper()
        add(w + rng.choice(suffixes) if rng.random() < 0.8 else rng.choice(suffixes) + w)
    # l33t.
    subs = {"a": "4@", "e": "3", "i": "1!", "o": "0", "s": "$5", "t": "7+", "l": "1|", "g": "9", "b": "8"}
    for _ in range(150):
        w = alpha(rng.choice([pw, en, names]), 5)
        chars = [rng.choice(subs[c]) if c in subs and rng.random() < 0.7 else c for c in w]
        s = "".join(chars)
        if rng.random() < 0.4:
            s = s[0].upper() + s[1:]
        if rng.random() < 0.3:
            s += rng.choice(suffixes)
        add(s)
    # Dates and years.
    for _ in range(130):
        y, m, d = rng.randint(1940, 2030), rng.randint(1, 12), rng.randint(1, 28)
        form = rng.randrange(9)
        if form == 0: add("%02d%02d%d" % (d, m, y))
        elif form == 1: add("%02d%02d%02d" % (m, d, y % 100))
        elif form == 2: add("%d-%02d-%02d" % (y, m, d))
        elif form == 3: add("%d/%d/%02d" % (d, m, y % 100))
        elif form == 4: add("%02d.%02d.%d" % (d, m, y))
        elif form == 5: add(str(y))
        elif form == 6: add(alpha(names).capitalize() + str(y))
        elif form == 7: add(alpha(en) + "%02d%02d" % (d, m))
        else: add("%d%02d%02d" % (y, m, d))
    # Keyboard walks (QWERTY, Dvorak, keypads), straight and with turns, shifted and not.
    rows = ["1234567890-=", "qwertyuiop[]", "asdfghjkl;'", "zxcvbnm,./", "`1234567890", "aoeuidhtns", "',.pyfgcrl"]
    for _ in range(60):
        r = rng.choice(rows)
        a = rng.randrange(len(r) - 3)
        b = rng.randint(a + 4, len(r))
        s = r[a:b]
        if rng.random() < 0.3:
            s = s[::-1]
        if rng.random() < 0.2:
            s = s.upper()
        add(s)
    for s in ["1qaz2wsx", "zaq12wsx", "!QAZ2wsx", "1q2w3e4r", "1q2w3e4r5t", "q1w2e3r4", "qazwsxedc", "zxcvbn", "asdfjkl;",
              "789456123", "147258369", "1478963", "159357", "741852963", "0147", "qweasdzxc", "poiuytrewq", "mnbvcxz",
              "!@#$%^&*", "qwer1234", "asdf;lkj", "1qazxsw2", "xsw2zaq1", "qwertz", "azerty", "wsxcde", "rfvtgb", "plmokn",
              "ZXCVBNM", "QWERTYUIOP", "Qwerty123!", "qwerty2024", "1234qwer", "!qaz@wsx", "aoeuaoeu", "htnshtns",
              "7410", "8520", "963.", "/*-+", "456852", "2580", "0258", "3692580147"]:
        add(s)
    for _ in range(25):
        start = rng.choice("qwertyuiopasdfghjklzxcvbnm")
        add(start + "".join(rng.choice("wsxcderfvbgt") for _ in range(rng.randint(3, 7))))
    # Repeats and sequences.
    for s in ["aaaaaa", "zzzzzzzz", "111111", "abcabcabc", "123123123", "lollol", "ababab", "xoxoxo", "hahahaha",
              "abcdef", "abcdefgh", "98765", "zyxwvu", "13579", "2468", "acegik", "ZYXWV", "0123456789", "9876543210",
              "monkeymonkey", "passpass", "abc123abc123", "qwertyqwerty", "11223344", "aabbcc", "a1b2c3d4"]:
        add(s)
    for _ in range(30):
        unit = "".join(rng.choice("abcxyz0123!") for _ in range(rng.randint(1, 4)))
        add(unit * rng.randint(2, 4) + (str(rng.randint(0, 99)) if rng.random() < 0.4 else ""))
    # Passphrases.
    seps = ["", " ", "-", ".", "_", "+"]
    for _ in range(150):
        n = rng.randint(2, 5)
        lst = rng.choice([en, tv, eff, eff])
        ws = [alpha(lst, 3) if lst is not eff else rng.choice(eff) for _ in range(n)]
        if rng.random() < 0.3:
            ws = [w.capitalize() for w in ws]
        s = rng.choice(seps).join(ws)
        if rng.random() < 0.2:
            s += str(rng.randint(0, 99))
        add(s)
    # Random strings.
    alphabets = ["abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz0123456789",
                 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                 "".join(chr(c) for c in range(33, 127)), "0123456789", "abcdefäöüßéèñ"]
    for _ in range(170):
        a = rng.choice(alphabets)
        add("".join(rng.choice(a) for _ in range(rng.randint(4, 24))))
    with open(os.path.join(HERE, "passwords.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(p + "\n" for p in out))
    print("%d passwords" % len(out))


if __name__ == "__main__":
    main()
