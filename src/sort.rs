//! One stable sort for the crate. `slice::sort_by` is generic over its
//! comparator, so each call site's closure got a copy of the whole sort (16
//! copies, ~100 KB of the wasm before wasm-opt). Here every site sorts a
//! permutation of indices through one comparator type, so there is a single
//! copy. The order is `sort_by`'s (stable), so results are identical.

use std::cmp::Ordering;

/// The stable sorting permutation of `0..n` under `cmp`.
#[inline(never)]
fn order(n: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

/// `v.sort_by(cmp)`, stable.
pub fn sort_by<T>(v: &mut Vec<T>, cmp: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let idx = order(v.len(), &|a, b| cmp(&v[a], &v[b]));
    let mut items: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(idx.into_iter().filter_map(|i| items[i].take()));
}

/// `v.sort_by_key(key)`, stable.
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// `v.sort()`, stable.
pub fn sort<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, T::cmp);
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_order_as_the_standard_stable_sort() {
        let mut seed = 7u64;
        let data: Vec<(u8, u32)> = (0..500)
            .map(|i| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((seed >> 60) as u8, i)
            })
            .collect();
        let mut ours = data.clone();
        super::sort_by_key(&mut ours, |x| x.0);
        let mut std = data;
        std.sort_by_key(|x| x.0);
        assert_eq!(ours, std);
    }
}
