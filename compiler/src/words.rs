//! The closed words of the language (`kind bugfix`, `verify per-repo`, `rule unrequested`,
//! a repository's role…): one table per enum gives its spellings, `as_str`, `Display`,
//! `FromStr` and kebab-case serde, so a word and its variant cannot drift apart and a new
//! word is never mistaken for an old one.

/// A word that is not one of the spellings of its enum.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{found}` is not one of {}", expected.join(", "))]
pub struct UnknownWord {
    pub found: String,
    pub expected: &'static [&'static str],
}

/// `words!(Enum { Variant => "word", … })`: `Enum::WORDS`, `as_str`, `Display`, `FromStr`.
macro_rules! words {
    ($ty:ident { $($variant:ident => $word:literal),+ $(,)? }) => {
        impl $ty {
            /// Every spelling, in declaration order.
            pub const WORDS: &'static [&'static str] = &[$($word),+];

            /// The word as written in a spec (and in plans, locks and reports).
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $word),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::words::UnknownWord;

            fn from_str(s: &str) -> Result<$ty, $crate::words::UnknownWord> {
                match s {
                    $($word => Ok($ty::$variant),)+
                    _ => Err($crate::words::UnknownWord {
                        found: s.to_string(),
                        expected: $ty::WORDS,
                    }),
                }
            }
        }
    };
}

pub(crate) use words;

#[cfg(test)]
mod tests {
    use crate::model::{Role, Rule, TaskKind, VerifyStrategy};
    use crate::parser::LogParser;
    use crate::plan::{Expect, ScoreMode, Verdict, WorkspaceMode};

    fn round_trip<T>(words: &[&str])
    where
        T: std::str::FromStr + std::fmt::Display + serde::Serialize,
        T::Err: std::fmt::Debug,
    {
        for w in words {
            let v: T = w.parse().unwrap();
            assert_eq!(v.to_string(), *w);
            assert_eq!(serde_json::to_value(&v).unwrap(), serde_json::json!(w));
        }
        assert!("no-such-word".parse::<T>().is_err());
    }

    #[test]
    fn every_word_parses_prints_and_serialises_as_itself() {
        round_trip::<TaskKind>(TaskKind::WORDS);
        round_trip::<VerifyStrategy>(VerifyStrategy::WORDS);
        round_trip::<Role>(Role::WORDS);
        round_trip::<Rule>(Rule::WORDS);
        round_trip::<Verdict>(Verdict::WORDS);
        round_trip::<Expect>(Expect::WORDS);
        round_trip::<ScoreMode>(ScoreMode::WORDS);
        round_trip::<WorkspaceMode>(WorkspaceMode::WORDS);
        round_trip::<LogParser>(LogParser::WORDS);
    }

    #[test]
    fn an_unknown_word_names_the_words_it_could_be() {
        let e = "featur".parse::<TaskKind>().unwrap_err();
        assert_eq!(e.to_string(), "`featur` is not one of bugfix, feature");
    }
}
