// A short list of the most common passwords, most common first, for the strength estimator.

/// The most common passwords, roughly in order of frequency as seen in public breach-derived top
/// lists (RockYou, SplashData and NordPass yearly lists); the rank is the estimator's guess count.
/// Spec/GENERATOR.md §5. Lowercase; the estimator lowercases and un-l33ts the password first.
enum CommonPasswords {
    static let ranked: [String] = """
        123456 password 12345678 qwerty 123456789 12345 1234 111111 1234567 dragon
        123123 baseball abc123 football monkey letmein 696969 shadow master 666666
        qwertyuiop 123321 mustang 1234567890 michael 654321 superman 1qaz2wsx 7777777 121212
        000000 qazwsx 123qwe killer trustno1 jordan jennifer zxcvbnm asdfgh hunter
        buster soccer harley batman andrew tigger sunshine iloveyou 2000 charlie
        robert thomas hockey ranger daniel starwars klaster 112233 george computer
        michelle jessica pepper 1111 zxcvbn 555555 11111111 131313 freedom 777777
        pass maggie 159753 aaaaaa ginger princess joshua cheese amanda summer
        love ashley nicole chelsea biteme matthew access yankees 987654321 dallas
        austin thunder taylor matrix hello123 monkey1 dragon1 sunshine1 football1 iloveyou1
        moscow welcome admin passw0rd password1 password123 qwerty123 login solo flower
        hottie loveme zaq1zaq1 hello whatever donald secret samsung abcdef abcd1234
        qwe123 1q2w3e4r 1q2w3e 123abc iloveu princess1 babygirl lovely rockyou butterfly
        purple angel liverpool justin 00000 anthony friends chocolate bubbles hannah
        pretty basketball angels tweety elizabeth tinkerbell samantha barbie lovers jasmine
        brandon melissa eminem danielle forever family jonathan cookie naruto spongebob
        joseph junior softball yellow lauren mickey alexandra alexis jesus william
        beautiful mylove angela poohbear patrick iloveme sakura adrian alexander destiny
        christian america dancer monica richard diamond carolina steven rangers orange
        nathan snoopy gabriel cherry sandra alejandro heather peanut blink182 victoria
        pokemon chicken rainbow heaven martin greenday november madison mother 123654
        qwer1234 asdf1234 asdfghjkl 1qazxsw2 q1w2e3r4 azerty 123qweasd passpass test
        test123 guest changeme default root toor administrator letmein1 welcome1 qwertyu
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)

    /// Rank (1 = most common) of each password; the first occurrence wins.
    static let rank: [String: Int] = {
        var out: [String: Int] = [:]
        for (i, word) in ranked.enumerated() where out[word] == nil { out[word] = i + 1 }
        return out
    }()
}
