//! `Chunked<T>`: a list of `Shared<T>` whose copy costs one reference count
//! per chunk of `CHUNK` items, not one per item.
//!
//! An entity registry is copied by every transaction that records a name and
//! the old version dropped after its commit; as a plain `Vec<Shared<T>>`
//! both touched every entity's reference count (scattered allocations: at
//! 20,000 entities that was ~45% of a native new-entity write, issue #17).
//! Here a copy shares the chunks, and a change copies only the chunk it
//! touches (`push` the last one, `get_mut` the item's). Every chunk but the
//! last is full, so item `i` is at `chunks[i / CHUNK][i % CHUNK]`.
//! Serialized exactly as the plain list of `T`.

use std::fmt;
use std::ops::{Index, IndexMut};
use std::rc::Rc;

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Shared;

const CHUNK: usize = 64;

pub struct Chunked<T> {
    chunks: Vec<Rc<Vec<Shared<T>>>>,
    len: usize,
}

impl<T> Chunked<T> {
    pub fn new() -> Self {
        Chunked { chunks: Vec::new(), len: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&Shared<T>> {
        (i < self.len).then(|| &self.chunks[i / CHUNK][i % CHUNK])
    }

    pub fn iter(&self) -> Iter<'_, T> {
        Iter { chunks: self.chunks.iter(), items: [].iter() }
    }

    /// How many leading items `a` and `b` share by whole chunks (the same
    /// chunk, not copies): items a caller need not compare one by one.
    pub fn shared_prefix(a: &Self, b: &Self) -> usize {
        let chunks = a.chunks.iter().zip(&b.chunks).take_while(|(x, y)| Rc::ptr_eq(x, y)).count();
        (chunks * CHUNK).min(a.len).min(b.len)
    }

    /// Whether both lists hold the very same items, told chunk by chunk
    /// (items of a shared chunk are the same without looking at them).
    pub fn same(a: &Self, b: &Self) -> bool {
        a.len == b.len
            && a.chunks.iter().zip(&b.chunks).all(|(x, y)| Rc::ptr_eq(x, y) || x.iter().zip(y.iter()).all(|(p, q)| Shared::same(p, q)))
    }
}

impl<T: Clone> Chunked<T> {
    pub fn push(&mut self, item: Shared<T>) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => Rc::make_mut(last).push(item),
            _ => self.chunks.push(Rc::new(vec![item])),
        }
        self.len += 1;
    }

    /// Item `i` to change: its chunk is copied first when another version holds it.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Shared<T>> {
        if i >= self.len {
            return None;
        }
        Some(&mut Rc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK])
    }
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked::new()
    }
}

impl<T> Clone for Chunked<T> {
    fn clone(&self) -> Self {
        Chunked { chunks: self.chunks.clone(), len: self.len }
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = Shared<T>;
    fn index(&self, i: usize) -> &Shared<T> {
        assert!(i < self.len, "index {i} out of {} items", self.len);
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

/// Item `i` to change, its chunk copied first when shared (see `get_mut`).
impl<T: Clone> IndexMut<usize> for Chunked<T> {
    fn index_mut(&mut self, i: usize) -> &mut Shared<T> {
        assert!(i < self.len, "index {i} out of {} items", self.len);
        &mut Rc::make_mut(&mut self.chunks[i / CHUNK])[i % CHUNK]
    }
}

impl<T: PartialEq> PartialEq for Chunked<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().zip(other.iter()).all(|(a, b)| **a == **b)
    }
}

impl<T: fmt::Debug> fmt::Debug for Chunked<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The items in order, chunk after chunk.
pub struct Iter<'a, T> {
    chunks: std::slice::Iter<'a, Rc<Vec<Shared<T>>>>,
    items: std::slice::Iter<'a, Shared<T>>,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a Shared<T>;
    fn next(&mut self) -> Option<&'a Shared<T>> {
        loop {
            if let Some(item) = self.items.next() {
                return Some(item);
            }
            self.items = self.chunks.next()?.iter();
        }
    }
}

impl<'a, T> IntoIterator for &'a Chunked<T> {
    type Item = &'a Shared<T>;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T: Clone> FromIterator<Shared<T>> for Chunked<T> {
    fn from_iter<I: IntoIterator<Item = Shared<T>>>(items: I) -> Self {
        let mut out = Chunked::new();
        for item in items {
            out.push(item);
        }
        out
    }
}

impl<T: Clone> From<Vec<Shared<T>>> for Chunked<T> {
    fn from(items: Vec<Shared<T>>) -> Self {
        items.into_iter().collect()
    }
}

impl<T: Serialize> Serialize for Chunked<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len))?;
        for item in self.iter() {
            seq.serialize_element(item)?;
        }
        seq.end()
    }
}

impl<'de, T: Deserialize<'de> + Clone> Deserialize<'de> for Chunked<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Items<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Clone> Visitor<'de> for Items<T> {
            type Value = Chunked<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Chunked<T>, A::Error> {
                let mut out = Chunked::new();
                while let Some(item) = seq.next_element::<Shared<T>>()? {
                    out.push(item);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Items(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_shares_chunks_and_a_change_copies_one() {
        let mut a: Chunked<u32> = (0..200).map(Shared::new).collect();
        let b = a.clone();
        *a.get_mut(130).expect("in range") = Shared::new(7);
        a.push(Shared::new(200));
        assert_eq!((a.len(), b.len()), (201, 200));
        assert_eq!((*a[130], *b[130]), (7, 130));
        assert_eq!(a.iter().map(|x| **x).filter(|&x| x == 7).count(), 2, "item 7 and the changed 130");
        assert!(Rc::ptr_eq(&a.chunks[0], &b.chunks[0]), "untouched chunks stay shared");
        assert!(!Rc::ptr_eq(&a.chunks[2], &b.chunks[2]), "the changed chunk is a copy");
        assert!(!Chunked::same(&a, &b));
        assert_eq!(Chunked::shared_prefix(&a, &b), 128, "chunks 0 and 1 are shared");
        let c = b.clone();
        assert!(Chunked::same(&b, &c) && b == c);
        assert_eq!(a.get(201), None);
    }

    #[test]
    fn serialized_as_the_plain_list() {
        let list: Chunked<u32> = (0..130).map(Shared::new).collect();
        let text = serde_json::to_string(&list).expect("serializes");
        assert_eq!(text, serde_json::to_string(&(0..130).collect::<Vec<u32>>()).expect("serializes"));
        let back: Chunked<u32> = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, list);
        assert_eq!(back.chunks.len(), 3);
    }
}
