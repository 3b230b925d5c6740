//! Options chosen by a word, as the command line and Python spell them (`"auto"`, `"full"`): each
//! enum lists its words and what each value does once, beside its definition, and both edges
//! parse through the one [`FromStr`](std::str::FromStr) that [`parse`] gives it.
//!
//! ```
//! use satgpu::named::Named;
//! use satgpu::ContactOrder;
//! assert_eq!("gpu".parse::<ContactOrder>(), Ok(ContactOrder::Gpu));
//! assert_eq!(ContactOrder::Host.word(), "host");
//! assert_eq!(
//!     "fast".parse::<ContactOrder>().unwrap_err(),
//!     r#"order must be "auto", "host" or "gpu", got "fast""#
//! );
//! ```

/// An option chosen by a word.
pub trait Named: Copy + PartialEq + Sized + 'static {
    /// The option as the command line's flag and Python's keyword name it (`"order"`).
    const OPTION: &'static str;
    /// Every value: its word and one line of what it does, in the order help lists them.
    const VALUES: &'static [(Self, &'static str, &'static str)];

    /// The value's word.
    fn word(self) -> &'static str {
        Self::VALUES.iter().find(|(v, ..)| *v == self).map_or("", |(_, w, _)| w)
    }
}

/// The value of `T` whose word is `word`, or an error that lists the words:
/// `order must be "auto", "host" or "gpu", got "fast"`.
pub fn parse<T: Named>(word: &str) -> Result<T, String> {
    let found = T::VALUES.iter().find(|(_, w, _)| *w == word);
    found.map(|(v, ..)| *v).ok_or_else(|| {
        let words: Vec<String> = T::VALUES.iter().map(|(_, w, _)| format!("{w:?}")).collect();
        let listed = match words.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => words.join(""),
        };
        format!("{} must be {listed}, got {word:?}", T::OPTION)
    })
}

/// `named!(Type, "option", [(Type::Value, "word", "what it does"), ...])`: the [`Named`] and
/// `FromStr` of an option's enum.
macro_rules! named {
    ($ty:ty, $option:literal, [$(($value:expr, $word:literal, $doc:literal)),+ $(,)?]) => {
        impl $crate::named::Named for $ty {
            const OPTION: &'static str = $option;
            const VALUES: &'static [($ty, &'static str, &'static str)] = &[$(($value, $word, $doc)),+];
        }

        impl std::str::FromStr for $ty {
            type Err = String;

            /// The value whose word is `s` ([`Named::VALUES`](crate::named::Named::VALUES)).
            fn from_str(s: &str) -> std::result::Result<Self, String> {
                $crate::named::parse(s)
            }
        }
    };
}
pub(crate) use named;
