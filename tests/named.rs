//! Options chosen by a word (`satgpu::named`): every word parses to its value and back, and a
//! word that is none names the option and lists the words.

use satgpu::gpu::{AdapterChoice, ContactDetail, ContactOrder};
use satgpu::named::{parse, Named};
use satgpu::sim::Resolve;

fn round_trip<T: Named + std::fmt::Debug>() {
    assert!(!T::VALUES.is_empty());
    for (value, word, doc) in T::VALUES {
        assert_eq!(parse::<T>(word), Ok(*value));
        assert_eq!(value.word(), *word);
        assert!(!doc.is_empty() && word.chars().all(|c| c.is_ascii_lowercase()), "{word}: {doc}");
    }
    let err = parse::<T>("Nope").unwrap_err();
    assert!(err.starts_with(&format!("{} must be ", T::OPTION)) && err.ends_with(r#"got "Nope""#), "{err}");
}

#[test]
fn every_word_parses_to_its_value_and_back() {
    round_trip::<AdapterChoice>();
    round_trip::<ContactDetail>();
    round_trip::<ContactOrder>();
    round_trip::<Resolve>();
    assert_eq!(parse::<ContactDetail>("x").unwrap_err(), r#"contacts must be "basic" or "full", got "x""#);
    assert_eq!(parse::<ContactDetail>(""), Err(r#"contacts must be "basic" or "full", got """#.to_string()));
    assert_eq!("software".parse::<AdapterChoice>(), Ok(AdapterChoice::Software));
}
