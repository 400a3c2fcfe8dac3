//! The byte form a MAC covers: a self-delimiting binary encoding of any
//! `Serialize` value, written straight into the hash.
//!
//! JSON would do, but every string would be escaped and every number
//! formatted only to be hashed; this form copies strings as they are
//! (length first) and numbers as fixed-width bytes, so MACs cost what the
//! hash costs. Each value starts with a tag byte; sequences, maps and
//! structs end with an end tag, and strings carry their length, so two
//! different values of one type never encode to the same bytes.
//!
//! A struct's fields are encoded by position, without their names: what
//! a MAC covers is always one fixed type under its own domain string, so
//! the names would only add bytes to hash. A field serde skips still
//! leaves a tag of its own, so "absent" and "present" differ. Variant
//! names and map keys are encoded (they tell values of one type apart).
//! Reordering, adding or removing a field of a signed type changes its
//! MACs: the domain strings carry a version for that.

use serde::ser::{self, Serialize};

/// Where encoded bytes go (a buffered hash).
pub(crate) trait Sink {
    /// Takes `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Takes one byte.
    fn byte(&mut self, byte: u8) {
        self.put(&[byte]);
    }
}

/// Encodes `value` into `sink`. A value that cannot be serialised (a map
/// with a non-string key where serde refuses, a custom error) encodes as
/// its prefix plus an error tag, which no honestly made MAC matches.
pub(crate) fn encode<T: Serialize + ?Sized, S: Sink>(value: &T, sink: &mut S) {
    if value.serialize(Encoder { sink: &mut *sink }).is_err() {
        sink.byte(tag::ERROR);
    }
}

mod tag {
    pub const NONE: u8 = 0x00;
    pub const SOME: u8 = 0x01;
    pub const FALSE: u8 = 0x02;
    pub const TRUE: u8 = 0x03;
    pub const INT: u8 = 0x04;
    pub const UINT: u8 = 0x05;
    pub const FLOAT: u8 = 0x06;
    pub const STR: u8 = 0x07;
    pub const BYTES: u8 = 0x08;
    pub const UNIT: u8 = 0x09;
    pub const VARIANT: u8 = 0x0a;
    pub const SEQ: u8 = 0x0b;
    pub const MAP: u8 = 0x0c;
    pub const STRUCT: u8 = 0x0d;
    pub const END: u8 = 0x0e;
    pub const NEWTYPE: u8 = 0x0f;
    pub const INT128: u8 = 0x10;
    pub const UINT128: u8 = 0x11;
    pub const SKIPPED: u8 = 0x12;
    pub const ERROR: u8 = 0xff;
}

/// The encoding failed (serde's custom errors); nothing else can fail.
#[derive(Debug)]
pub(crate) struct Unencodable;

impl std::fmt::Display for Unencodable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the value cannot be encoded")
    }
}

impl std::error::Error for Unencodable {}

impl ser::Error for Unencodable {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Unencodable
    }
}

struct Encoder<'a, S: Sink> {
    sink: &'a mut S,
}

impl<S: Sink> Encoder<'_, S> {
    fn str(&mut self, text: &str) {
        self.sink.byte(tag::STR);
        self.name(text);
    }

    /// A length (LEB128: seven bits a byte, low first, high bit = more).
    fn len(&mut self, len: usize) {
        let mut rest = len as u64;
        loop {
            let low = (rest & 0x7f) as u8;
            rest >>= 7;
            if rest == 0 {
                self.sink.byte(low);
                return;
            }
            self.sink.byte(low | 0x80);
        }
    }

    fn name(&mut self, text: &str) {
        self.len(text.len());
        self.sink.put(text.as_bytes());
    }

    fn nested(&mut self) -> Encoder<'_, S> {
        Encoder {
            sink: &mut *self.sink,
        }
    }
}

type Done = Result<(), Unencodable>;

impl<'a, S: Sink> ser::Serializer for Encoder<'a, S> {
    type Ok = ();
    type Error = Unencodable;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Done {
        self.sink.byte(if v { tag::TRUE } else { tag::FALSE });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Done {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Done {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Done {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Done {
        self.sink.byte(tag::INT);
        self.sink.put(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Done {
        self.sink.byte(tag::INT128);
        self.sink.put(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Done {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Done {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Done {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Done {
        self.sink.byte(tag::UINT);
        self.sink.put(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Done {
        self.sink.byte(tag::UINT128);
        self.sink.put(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Done {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Done {
        self.sink.byte(tag::FLOAT);
        self.sink.put(&v.to_bits().to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Done {
        let mut buf = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut buf))
    }
    fn serialize_str(mut self, v: &str) -> Done {
        self.str(v);
        Ok(())
    }
    fn serialize_bytes(mut self, v: &[u8]) -> Done {
        self.sink.byte(tag::BYTES);
        self.len(v.len());
        self.sink.put(v);
        Ok(())
    }
    fn serialize_none(self) -> Done {
        self.sink.byte(tag::NONE);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        self.sink.byte(tag::SOME);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.sink.byte(tag::UNIT);
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Done {
        self.serialize_unit()
    }
    fn serialize_unit_variant(mut self, _: &'static str, _: u32, variant: &'static str) -> Done {
        self.sink.byte(tag::VARIANT);
        self.name(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        self.sink.byte(tag::NEWTYPE);
        self.name(variant);
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Unencodable> {
        self.sink.byte(tag::SEQ);
        Ok(self)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self, Unencodable> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Self, Unencodable> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Unencodable> {
        self.sink.byte(tag::NEWTYPE);
        self.name(variant);
        self.sink.byte(tag::SEQ);
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Unencodable> {
        self.sink.byte(tag::MAP);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Unencodable> {
        self.sink.byte(tag::STRUCT);
        Ok(self)
    }
    fn serialize_struct_variant(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Unencodable> {
        self.sink.byte(tag::NEWTYPE);
        self.name(variant);
        self.sink.byte(tag::STRUCT);
        Ok(self)
    }
}

/// The sequence-like compounds: each element in order, then the end tag.
macro_rules! elements {
    ($($trait:ident :: $method:ident),*) => {$(
        impl<S: Sink> ser::$trait for Encoder<'_, S> {
            type Ok = ();
            type Error = Unencodable;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
                value.serialize(self.nested())
            }
            fn end(self) -> Done {
                self.sink.byte(tag::END);
                Ok(())
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<S: Sink> ser::SerializeMap for Encoder<'_, S> {
    type Ok = ();
    type Error = Unencodable;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        key.serialize(self.nested())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(self.nested())
    }
    fn end(self) -> Done {
        self.sink.byte(tag::END);
        Ok(())
    }
}

impl<S: Sink> ser::SerializeStruct for Encoder<'_, S> {
    type Ok = ();
    type Error = Unencodable;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Done {
        value.serialize(self.nested())
    }
    fn skip_field(&mut self, _: &'static str) -> Done {
        // A skipped field still leaves a mark, so a present-but-default
        // field and an absent one differ where serde can tell them apart,
        // and the fields after it keep their positions.
        self.sink.byte(tag::SKIPPED);
        Ok(())
    }
    fn end(self) -> Done {
        self.sink.byte(tag::END);
        Ok(())
    }
}

impl<S: Sink> ser::SerializeStructVariant for Encoder<'_, S> {
    type Ok = ();
    type Error = Unencodable;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &'static str, value: &T) -> Done {
        value.serialize(self.nested())
    }
    fn skip_field(&mut self, _: &'static str) -> Done {
        self.sink.byte(tag::SKIPPED);
        Ok(())
    }
    fn end(self) -> Done {
        self.sink.byte(tag::END);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    impl Sink for Vec<u8> {
        fn put(&mut self, bytes: &[u8]) {
            self.extend_from_slice(bytes);
        }
    }

    fn bytes<T: Serialize>(value: &T) -> Vec<u8> {
        let mut out = Vec::new();
        encode(value, &mut out);
        out
    }

    #[test]
    fn values_that_json_would_tell_apart_encode_apart() {
        let values = [
            json!(null),
            json!(false),
            json!(true),
            json!(0),
            json!(-1),
            json!(1.5),
            json!(""),
            json!("a"),
            json!("ab"),
            json!(["a", "b"]),
            json!(["ab"]),
            json!([["a"], "b"]),
            json!({"a": "b"}),
            json!({"ab": ""}),
            json!({"a": {"b": null}}),
            json!([{}]),
            json!({}),
            json!([]),
        ];
        for (i, a) in values.iter().enumerate() {
            for b in &values[i + 1..] {
                assert_ne!(bytes(a), bytes(b), "{a} and {b} encode alike");
            }
        }
    }

    #[derive(serde::Serialize)]
    struct Two {
        #[serde(skip_serializing_if = "Option::is_none")]
        a: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<String>,
    }

    #[test]
    fn fields_encode_by_position_and_a_skipped_field_keeps_its_place() {
        let x = || Some("x".to_owned());
        let variants = [
            Two { a: x(), b: None },
            Two { a: None, b: x() },
            Two { a: x(), b: x() },
            Two { a: None, b: None },
            Two {
                a: Some(String::new()),
                b: None,
            },
        ];
        for (i, a) in variants.iter().enumerate() {
            for b in &variants[i + 1..] {
                assert_ne!(bytes(a), bytes(b));
            }
        }
    }

    #[test]
    fn a_string_holding_a_tag_cannot_pose_as_structure() {
        let split = json!(["a", "b"]);
        let one = json!(["a\u{7}\u{1}b"]);
        assert_ne!(bytes(&split), bytes(&one));
        let long = "x".repeat(300);
        assert_ne!(
            bytes(&json!([long.clone(), ""])),
            bytes(&json!([long + "\u{7}\u{0}"]))
        );
    }
}
