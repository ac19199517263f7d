//! Where each value of a data file stands, so an error can point at an id or a pattern. The
//! files deserialize straight into the public types, which carry no positions; this second
//! read of the text is made only when an error has to be located, and it cannot fail where the
//! first read succeeded.

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toml::Spanned;

/// The values of one TOML document, each with its span.
pub(super) struct Spans {
    root: Option<Node>,
}

enum Node {
    Table(HashMap<String, Spanned<Node>>),
    Array(Vec<Spanned<Node>>),
    Leaf,
}

impl Spans {
    pub(super) fn parse(text: &str) -> Spans {
        Spans {
            root: toml::from_str(text).ok(),
        }
    }

    /// The byte offset of the value at `path`: keys and array indices joined by dots
    /// (`drives.3.firmware.0.match`). A path that names nothing points at the file's start.
    pub(super) fn offset(&self, path: &str) -> usize {
        let mut node = self.root.as_ref();
        let mut offset = 0;
        for key in path.split('.') {
            let child = match node {
                Some(Node::Table(table)) => table.get(key),
                Some(Node::Array(items)) => key.parse().ok().and_then(|i: usize| items.get(i)),
                _ => None,
            };
            let Some(child) = child else { return 0 };
            offset = child.span().start;
            node = Some(child.get_ref());
        }
        offset
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TOML value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_str<E>(self, _: &str) -> Result<Node, E> {
        Ok(Node::Leaf)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut table = HashMap::new();
        while let Some((key, value)) = map.next_entry()? {
            table.insert(key, value);
        }
        Ok(Node::Table(table))
    }
}
