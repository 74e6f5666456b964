//! `Chunked<T>`: a list of `Shared<T>` whose copy costs one reference count
//! per chunk of `CHUNK` items, not one per item.
//!
//! A slot's claims are copied by every transaction and the old version
//! dropped after its commit; as a plain `Vec<Shared<T>>` both touched every
//! item's reference count (scattered allocations: in the entity registry of
//! 20,000 entities this replaced, ~45% of a native new-entity write, issue #17).
//! Here a copy shares the chunks, and a change copies only the chunk it
//! touches (`push` the last one, `get_mut` the item's). Every chunk but the
//! last is full, so item `i` is at `chunks[i / CHUNK][i % CHUNK]`.
//! Serialized exactly as the plain list of `T`.

use std::cell::OnceCell;
use std::fmt;
use std::ops::{Index, IndexMut};
use std::rc::Rc;

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Shared;

const CHUNK: usize = 64;

pub struct Chunked<T> {
    chunks: Vec<Rc<Chunk<T>>>,
    len: usize,
}

/// How many hashes an item is looked up by.
pub const KEYS: usize = 4;

/// The hashes by which an item is looked up (`Chunked::rposition_keyed`): a
/// claim by its id, its (subject, object), its value's tokens and its object
/// entity (0 when it has none); a hash nothing is looked up by may be 0.
/// Also one flag, kept per chunk for `all_flagged` (a claim: current).
pub trait Keyed {
    fn key_hashes(&self) -> [u64; KEYS];
    fn flag(&self) -> bool;
}

/// The hash `Keyed` items are looked up by (fixed seed: the same in every version of a list).
pub fn key_hash(key: impl std::hash::Hash) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(key)
}

/// Up to `CHUNK` items and, once a keyed look-up asked, their key hashes
/// side by side: a look-up reads 16 bytes an item instead of following two
/// pointers to compare text (a long history holds thousands of claims). Any change through `items_mut` drops the hashes.
pub struct Chunk<T> {
    items: Vec<Shared<T>>,
    hashes: OnceCell<Hashed>,
}

/// A chunk's key hashes, each key's sorted with the item's place in the
/// chunk (a look-up is a binary search per chunk, not a compare per item: a
/// multi-valued slot of 10,000 values looks values up several times a
/// write), and how many items have their flag set.
struct Hashed {
    sorted: [Box<[(u64, u8)]>; KEYS],
    flagged: usize,
}

impl<T> Chunk<T> {
    fn of(item: Shared<T>) -> Self {
        let mut items = Vec::with_capacity(CHUNK);
        items.push(item);
        Chunk { items, hashes: OnceCell::new() }
    }

    fn items_mut(&mut self) -> &mut Vec<Shared<T>> {
        self.hashes.take();
        &mut self.items
    }
}

/// Only `Rc::make_mut` copies a chunk, and only to change it: the copy
/// starts without hashes (they would be dropped at once).
impl<T: Clone> Clone for Chunk<T> {
    fn clone(&self) -> Self {
        Chunk { items: self.items.clone(), hashes: OnceCell::new() }
    }
}

impl<T> std::ops::Deref for Chunk<T> {
    type Target = Vec<Shared<T>>;
    fn deref(&self) -> &Vec<Shared<T>> {
        &self.items
    }
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
        self.iter_from(0)
    }

    /// The items from position `from` on, without walking the ones before it.
    pub fn iter_from(&self, from: usize) -> Iter<'_, T> {
        Iter { chunks: &self.chunks, front: from.min(self.len), back: self.len }
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
            Some(last) if last.len() < CHUNK => Rc::make_mut(last).items_mut().push(item),
            _ => self.chunks.push(Rc::new(Chunk::of(item))),
        }
        self.len += 1;
    }

    /// Item `i` to change: its chunk is copied first when another version holds it.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Shared<T>> {
        if i >= self.len {
            return None;
        }
        Some(&mut Rc::make_mut(&mut self.chunks[i / CHUNK]).items_mut()[i % CHUNK])
    }

    /// The first item `pred` holds for, to change: only its chunk is copied.
    pub fn find_mut(&mut self, pred: impl Fn(&T) -> bool) -> Option<&mut Shared<T>> {
        let i = self.iter().position(|item| pred(item))?;
        self.get_mut(i)
    }
}

impl<T: Keyed> Chunked<T> {
    /// The positions whose key hash `which` is `hash`, in order (hashes can
    /// collide: a caller compares the item too).
    fn keyed(&self, which: usize, hash: u64) -> impl DoubleEndedIterator<Item = usize> + '_ {
        self.chunks.iter().enumerate().flat_map(move |(c, chunk)| {
            let sorted = &chunk.summary().sorted[which];
            let (from, to) = (sorted.partition_point(|(h, _)| *h < hash), sorted.partition_point(|(h, _)| *h <= hash));
            sorted[from..to].iter().map(move |(_, j)| c * CHUNK + usize::from(*j))
        })
    }

    /// The positions whose key hash `which` is `hash`, in order: candidates
    /// the caller still compares (hashes can collide).
    pub fn positions_keyed(&self, which: usize, hash: u64) -> Vec<usize> {
        self.keyed(which, hash).collect()
    }

    /// The position of the first item whose key hash `which` is `hash` and that `matches`.
    pub fn position_keyed(&self, which: usize, hash: u64, matches: impl Fn(&T) -> bool) -> Option<usize> {
        self.keyed(which, hash).find(|&i| matches(&self[i]))
    }

    /// `position_keyed` from the end: a write most often looks up what was added last.
    pub fn rposition_keyed(&self, which: usize, hash: u64, matches: impl Fn(&T) -> bool) -> Option<usize> {
        self.keyed(which, hash).rev().find(|&i| matches(&self[i]))
    }

    /// Every item's flag is set: read per chunk (kept with its hashes).
    pub fn all_flagged(&self) -> bool {
        self.chunks.iter().all(|chunk| chunk.summary().flagged == chunk.len())
    }

    /// How many items have their flag set: read per chunk.
    pub fn count_flagged(&self) -> usize {
        self.chunks.iter().map(|chunk| chunk.summary().flagged).sum()
    }
}

impl<T: Keyed> Chunk<T> {
    fn summary(&self) -> &Hashed {
        self.hashes.get_or_init(|| {
            let keys: Vec<[u64; KEYS]> = self.items.iter().map(|item| item.key_hashes()).collect();
            let sorted = std::array::from_fn(|which| {
                // CHUNK (64) items: a place fits in a u8.
                let mut by: Vec<(u64, u8)> = keys.iter().zip(0u8..).map(|(k, j)| (k[which], j)).collect();
                by.sort_unstable();
                by.into_boxed_slice()
            });
            Hashed { sorted, flagged: self.items.iter().filter(|item| item.flag()).count() }
        })
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
        &mut Rc::make_mut(&mut self.chunks[i / CHUNK]).items_mut()[i % CHUNK]
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

/// The items in order, chunk after chunk (from either end).
/// By position (every chunk but the last is full): a small iterator, as it
/// is instantiated at every place a slot's claims are read.
pub struct Iter<'a, T> {
    chunks: &'a [Rc<Chunk<T>>],
    front: usize,
    back: usize,
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter { chunks: self.chunks, front: self.front, back: self.back }
    }
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a Shared<T>;
    fn next(&mut self) -> Option<&'a Shared<T>> {
        (self.front < self.back).then(|| {
            self.front += 1;
            &self.chunks[(self.front - 1) / CHUNK].items[(self.front - 1) % CHUNK]
        })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.back - self.front, Some(self.back - self.front))
    }
}

impl<T> DoubleEndedIterator for Iter<'_, T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            &self.chunks[self.back / CHUNK].items[self.back % CHUNK]
        })
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

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

    #[derive(Clone, PartialEq, Debug)]
    struct Named(String, bool);

    impl Keyed for Named {
        fn key_hashes(&self) -> [u64; KEYS] {
            [key_hash(self.0.as_str()), key_hash(self.0.len()), 0, 0]
        }
        fn flag(&self) -> bool {
            self.1
        }
    }

    fn by_name(list: &Chunked<Named>, name: &str) -> Option<usize> {
        list.rposition_keyed(0, key_hash(name), |n| n.0 == name)
    }

    #[test]
    fn keyed_look_ups_follow_every_change() {
        let mut a: Chunked<Named> = (0..150).map(|i| Shared::new(Named(format!("n{i}"), true))).collect();
        assert_eq!((by_name(&a, "n0"), by_name(&a, "n149"), by_name(&a, "n150")), (Some(0), Some(149), None));
        assert!(a.all_flagged());
        let b = a.clone();
        a.push(Shared::new(Named("n150".into(), true)));
        a[70] = Shared::new(Named("renamed".into(), false));
        assert_eq!((by_name(&a, "n150"), by_name(&a, "renamed"), by_name(&a, "n70")), (Some(150), Some(70), None));
        assert_eq!((by_name(&b, "n150"), by_name(&b, "renamed"), by_name(&b, "n70")), (None, None, Some(70)), "the copy keeps its own answers");
        assert!(!a.all_flagged() && b.all_flagged());
        a.push(Shared::new(Named("n0".into(), true)));
        assert_eq!((a.position_keyed(0, key_hash("n0"), |n| n.0 == "n0"), by_name(&a, "n0")), (Some(0), Some(151)), "first and last of a repeated key");
        assert_eq!(a.position_keyed(1, key_hash(2usize), |n| n.0.len() == 2), Some(0), "the second key");
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
