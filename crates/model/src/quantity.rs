//! Kubernetes resource quantities (`100m`, `2Gi`, `1.5`, `1e3`).
//!
//! Kept exact with integer arithmetic: the scheduler compares `MilliValue()` for CPU and
//! `Value()` (rounded up) for everything else, and float rounding would flip edge cases
//! such as a pod that asks for exactly what is left.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid quantity {text:?}: {reason}")]
pub struct QuantityError {
    pub text: String,
    pub reason: &'static str,
}

/// A quantity held in thousandths of its unit, rounded up like upstream's `MilliValue()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Quantity {
    milli: i64,
}

impl Quantity {
    pub fn from_milli(milli: i64) -> Self {
        Quantity { milli }
    }

    pub fn from_value(value: i64) -> Self {
        Quantity {
            milli: value.saturating_mul(1000),
        }
    }

    /// Thousandths of the unit (CPU is compared in millicores).
    pub fn milli_value(self) -> i64 {
        self.milli
    }

    /// Whole units rounded up (memory, pods, extended resources).
    pub fn value(self) -> i64 {
        self.milli.div_euclid(1000) + i64::from(self.milli.rem_euclid(1000) != 0)
    }

    pub fn parse(text: &str) -> Result<Quantity, QuantityError> {
        let milli = parse_scaled(text, 3)?;
        Ok(Quantity { milli })
    }
}

/// `text` in units of `10^-decimals` (3: thousandths), rounded up.
fn parse_scaled(text: &str, decimals: i32) -> Result<i64, QuantityError> {
    let err = |reason| QuantityError {
        text: text.to_string(),
        reason,
    };
    let s = text.trim();
    if s.is_empty() {
        return Err(err("empty"));
    }
    let (negative, s) = match s.as_bytes()[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let number_end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, suffix) = s.split_at(number_end);
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return Err(err("expected a number"));
    }
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let digits: String = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    if digits.len() > 30 {
        return Err(err("too many digits"));
    }
    let mantissa: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().map_err(|_| err("expected a number"))?
    };
    // value = mantissa * 10^(exp10 - fraction digits) * 2^exp2, held in thousandths.
    let (exp2, exp10): (u32, i32) = match suffix {
        "" => (0, 0),
        "Ki" => (10, 0),
        "Mi" => (20, 0),
        "Gi" => (30, 0),
        "Ti" => (40, 0),
        "Pi" => (50, 0),
        "Ei" => (60, 0),
        "n" => (0, -9),
        "u" => (0, -6),
        "m" => (0, -3),
        "k" => (0, 3),
        "M" => (0, 6),
        "G" => (0, 9),
        "T" => (0, 12),
        "P" => (0, 15),
        "E" => (0, 18),
        s if s.starts_with(['e', 'E']) => (
            0,
            s[1..]
                .parse::<i32>()
                .ok()
                .filter(|e| e.abs() <= 30)
                .ok_or_else(|| err("bad exponent"))?,
        ),
        _ => return Err(err("unknown suffix")),
    };
    let scale = exp10 + decimals - fraction.len() as i32;
    let mut milli = mantissa
        .checked_mul(1i128 << exp2)
        .ok_or_else(|| err("too large"))?;
    if scale >= 0 {
        milli = 10i128
            .checked_pow(scale as u32)
            .and_then(|p| milli.checked_mul(p))
            .ok_or_else(|| err("too large"))?;
    } else {
        let divisor = 10i128
            .checked_pow((-scale) as u32)
            .ok_or_else(|| err("too many digits"))?;
        milli = milli / divisor + i128::from(milli % divisor != 0);
    }
    if negative {
        milli = -milli;
    }
    i64::try_from(milli).map_err(|_| err("too large"))
}

/// A storage size in bytes (`spec.resources.requests.storage`, a PersistentVolume's capacity):
/// whole bytes rounded up, as upstream compares them with `Value()`. Not a [`Quantity`], whose
/// thousandths overflow past 8 PiB, and Fluid's dataset volumes are 100Pi.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Bytes(pub i64);

impl Bytes {
    pub fn parse(text: &str) -> Result<Bytes, QuantityError> {
        parse_scaled(text, 0).map(Bytes)
    }
}

impl fmt::Display for Bytes {
    /// The largest binary suffix that divides the size exactly (`100Pi`, `5Gi`), else bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SUFFIXES: [(&str, u32); 6] = [
            ("Ei", 60),
            ("Pi", 50),
            ("Ti", 40),
            ("Gi", 30),
            ("Mi", 20),
            ("Ki", 10),
        ];
        let n = self.0;
        match SUFFIXES
            .iter()
            .find(|(_, shift)| n != 0 && n % (1i64 << shift) == 0)
        {
            Some((suffix, shift)) => write!(f, "{}{suffix}", n >> shift),
            None => write!(f, "{n}"),
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.milli % 1000 == 0 {
            write!(f, "{}", self.milli / 1000)
        } else {
            write!(f, "{}m", self.milli)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_upstream() {
        let cases: &[(&str, i64, i64)] = &[
            // text, milli_value, value
            ("100m", 100, 1),
            ("1", 1000, 1),
            ("1.5", 1500, 2),
            ("0.1", 100, 1),
            ("2Gi", 2 * 1024 * 1024 * 1024 * 1000, 2 * 1024 * 1024 * 1024),
            ("200Mi", 200 * 1024 * 1024 * 1000, 200 * 1024 * 1024),
            ("1k", 1_000_000, 1000),
            ("1e3", 1_000_000, 1000),
            ("1.5Gi", 1_610_612_736_000, 1_610_612_736),
            ("500n", 1, 1),
            ("0", 0, 0),
            ("+3", 3000, 3),
            ("-1", -1000, -1),
            ("128974848", 128_974_848_000, 128_974_848),
        ];
        for (text, milli, value) in cases {
            let q = Quantity::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(q.milli_value(), *milli, "{text} milli");
            assert_eq!(q.value(), *value, "{text} value");
        }
    }

    #[test]
    fn storage_sizes_are_whole_bytes_past_the_thousandths_range() {
        let cases: &[(&str, i64, &str)] = &[
            ("100Pi", 100 << 50, "100Pi"),
            ("5Gi", 5 << 30, "5Gi"),
            ("1.5Gi", 1_610_612_736, "1536Mi"),
            ("10G", 10_000_000_000, "9765625Ki"),
            ("1500", 1500, "1500"),
            ("0.5", 1, "1"),
            ("0", 0, "0"),
        ];
        for (text, bytes, shown) in cases {
            let size = Bytes::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(size, Bytes(*bytes), "{text}");
            assert_eq!(size.to_string(), *shown, "{text}");
        }
        assert!(Quantity::parse("100Pi").is_err());
        assert!(Bytes::parse("9Ei").is_err());
    }

    #[test]
    fn rejects_garbage() {
        for text in ["", "abc", "1.2.3", "1Zi", "1e", "--1", "1e999", "."] {
            assert!(Quantity::parse(text).is_err(), "{text}");
        }
    }
}
