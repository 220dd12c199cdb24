//! Tree-compressed, exact storage of visited states, shared by the workers
//! of the level-synchronous search ([`super::levels`]).
//!
//! A state is cut into two halves; each half is interned in a [`Node`] of
//! its own (a packed row when narrow, pairs of narrower parts' ids when
//! wide), and the state is stored as the pair of its halves' ids, its
//! root: 32 bits while both ids fit in 16 bits, else 64 (the store widens
//! once, when a half's id first needs it). This is the tree compression of
//! LTSmin and Spin's COLLAPSE mode.
//!
//! The roots are kept in an open-addressing set keyed by the root itself,
//! in shards that grow one at a time. The store gives states no ids and
//! keeps no order: the search keeps the roots it has yet to expand, and
//! its own record of the way back. Nothing is hashed lossily: two states
//! share a root only if they are equal. Lookups ([`TreeStore::look`]) take
//! `&self`, so any number of threads may look up while nobody stores;
//! storing happens between levels, on as many threads as there are parts
//! (runs of shards, [`TreeStore::insert_parts`]).

use std::sync::Mutex;

use super::nodes::{insert_halves, mix, pair, unpair, Node};
use crate::runtime::par_map;

/// Largest half id a 32-bit root holds (one below 16 bits, so that no
/// narrow root is the empty slot's marker).
const NARROW_MAX: u32 = 0xFFFE;

/// A root as stored: `u32` (two 16-bit ids) or `u64` (two 32-bit ids).
trait Key: Copy + Eq {
    /// The marker of an empty slot.
    const EMPTY: Self;
    /// Spreads the bits of the key over the table.
    fn spread(self) -> u64;
}

impl Key for u32 {
    const EMPTY: u32 = u32::MAX;
    fn spread(self) -> u64 {
        mix(self as u64)
    }
}

impl Key for u64 {
    const EMPTY: u64 = u64::MAX;
    fn spread(self) -> u64 {
        mix(self)
    }
}

/// An open-addressing set of keys with linear probing, filled to at most
/// 80 %. Any number of slots: a key's first slot scales the hash's low 56
/// bits (the top 8 pick the shard) to the table, so shards of different
/// sizes double at different times.
struct KeySet<K> {
    slots: Vec<K>,
    len: usize,
}

impl<K: Key> KeySet<K> {
    fn with_slots(n: usize) -> Option<KeySet<K>> {
        let mut slots = Vec::new();
        slots.try_reserve_exact(n).ok()?;
        slots.resize(n, K::EMPTY);
        Some(KeySet { slots, len: 0 })
    }

    fn first_slot(&self, h: u64) -> usize {
        (((h << 8) as u128 * self.slots.len() as u128) >> 64) as usize
    }

    fn next_slot(&self, i: usize) -> usize {
        if i + 1 == self.slots.len() {
            0
        } else {
            i + 1
        }
    }

    /// Whether `k`, spread to `h`, is in the set.
    fn contains(&self, k: K, h: u64) -> bool {
        let mut i = self.first_slot(h);
        loop {
            let s = self.slots[i];
            if s == k {
                return true;
            }
            if s == K::EMPTY {
                return false;
            }
            i = self.next_slot(i);
        }
    }

    /// Adds `k` (spread to `h`), which is not in the set, to a set with
    /// room for it.
    fn insert_new(&mut self, k: K, h: u64) {
        let mut i = self.first_slot(h);
        while self.slots[i] != K::EMPTY {
            i = self.next_slot(i);
        }
        self.slots[i] = k;
        self.len += 1;
    }

    /// Slots needed for `n` more keys (the current number if they fit): a
    /// full table grows by half, not double, which keeps it fuller.
    fn slots_for(&self, n: usize) -> usize {
        let mut slots = self.slots.len();
        while (self.len + n) * 5 > slots * 4 {
            slots += slots / 2;
        }
        slots
    }

    /// Grows to `slots` slots; false (and unchanged) if the memory cannot
    /// be had.
    fn grow_to(&mut self, slots: usize) -> bool {
        if slots == self.slots.len() {
            return true;
        }
        let Some(mut bigger) = KeySet::with_slots(slots) else {
            return false;
        };
        for &k in &self.slots {
            if k != K::EMPTY {
                bigger.insert_new(k, k.spread());
            }
        }
        *self = bigger;
        true
    }
}

/// Shards of the set of roots: each grows on its own, so that a doubling
/// never holds two copies of the whole table at once.
const SHARDS: usize = 256;

/// Slots of the smallest shard at first; the others have up to twice as
/// many, spread evenly, so that the shards, which fill at the same pace,
/// do not all double at once.
const MIN_SLOTS: usize = 64;

/// The set of roots, split into [`SHARDS`] shards by the top bits of the
/// spread key.
struct Roots<K> {
    shards: Vec<KeySet<K>>,
}

impl<K: Key> Roots<K> {
    fn new() -> Roots<K> {
        Roots {
            shards: (0..SHARDS)
                .map(|i| {
                    KeySet::with_slots(MIN_SLOTS + MIN_SLOTS * i / SHARDS).expect("a small table")
                })
                .collect(),
        }
    }

    fn shard(h: u64) -> usize {
        (h >> 56) as usize % SHARDS
    }

    fn len(&self) -> usize {
        self.shards.iter().map(|s| s.len).sum()
    }

    fn contains(&self, k: K) -> bool {
        let h = k.spread();
        self.shards[Self::shard(h)].contains(k, h)
    }

    /// Adds `k`, which is not in the set; false when the memory for it
    /// cannot be had.
    fn insert_new(&mut self, k: K) -> bool {
        let h = k.spread();
        let shard = &mut self.shards[Self::shard(h)];
        if !shard.grow_to(shard.slots_for(1)) {
            return false;
        }
        shard.insert_new(k, h);
        true
    }

    fn heap_bytes(&self) -> usize {
        self.shards.iter().map(|s| s.slots.len()).sum::<usize>() * std::mem::size_of::<K>()
    }

    /// At least the bytes the growth of the largest shard allocates.
    fn largest_growth(&self) -> usize {
        self.shards.iter().map(|s| s.slots.len()).max().unwrap_or(0) * 2 * std::mem::size_of::<K>()
    }

    /// The first shard of part `p` of `parts` (see [`part_of_shard`]).
    fn first_shard(p: usize, parts: usize) -> usize {
        (p * SHARDS).div_ceil(parts)
    }

    /// Adds the keys of `parts`, none in the set, list `p` holding keys of
    /// part `p` only, one thread per part; false when the memory for them
    /// cannot be had (some may be added then).
    fn insert_parts<I>(&mut self, parts: Vec<I>) -> bool
    where
        K: Send,
        I: Iterator<Item = K> + Clone + Send,
    {
        let n = parts.len();
        let mut groups = Vec::with_capacity(n);
        let mut rest = &mut self.shards[..];
        for p in 0..n {
            let len = Self::first_shard(p + 1, n) - Self::first_shard(p, n);
            let (group, tail) = rest.split_at_mut(len);
            groups.push((Self::first_shard(p, n), group));
            rest = tail;
        }
        let insert = |(first, group): (usize, &mut [KeySet<K>]), keys: I| {
            // By shard (a counting sort), so that each shard grows once and
            // is filled while it is in the cache.
            let mut ends = vec![0usize; group.len() + 1];
            for k in keys.clone() {
                ends[Self::shard(k.spread()) - first + 1] += 1;
            }
            for g in 0..group.len() {
                ends[g + 1] += ends[g];
            }
            let mut sorted = Vec::new();
            if sorted.try_reserve_exact(ends[group.len()]).is_err() {
                return false;
            }
            sorted.resize(ends[group.len()], K::EMPTY);
            let mut next = ends.clone();
            for k in keys {
                let g = Self::shard(k.spread()) - first;
                sorted[next[g]] = k;
                next[g] += 1;
            }
            for (g, shard) in group.iter_mut().enumerate() {
                let run = &sorted[ends[g]..ends[g + 1]];
                if !shard.grow_to(shard.slots_for(run.len())) {
                    return false;
                }
                for &k in run {
                    shard.insert_new(k, k.spread());
                }
            }
            true
        };
        // Each part's shards and keys, taken by the thread that stores them.
        let work: Vec<Mutex<Option<_>>> = (groups.into_iter().zip(parts))
            .map(|job| Mutex::new(Some(job)))
            .collect();
        par_map(n, n, |p| {
            let job = work[p].lock().unwrap_or_else(|e| e.into_inner()).take();
            job.is_some_and(|(group, keys)| insert(group, keys))
        })
        .into_iter()
        .all(|stored| stored)
    }
}

/// The part of `parts` that shard `shard` belongs to: parts are runs of
/// consecutive shards.
fn part_of_shard(shard: usize, parts: usize) -> usize {
    shard * parts / SHARDS
}

/// The roots, narrow until a half's id needs more than 16 bits.
enum RootTable {
    Narrow(Roots<u32>),
    Wide(Roots<u64>),
}

/// A root in its wide form: the left half's id in the low 32 bits.
pub type Root = u64;

/// The narrow form of a root, if both ids fit.
fn narrow(root: Root) -> Option<u32> {
    let (l, r) = unpair(root);
    (l <= NARROW_MAX && r <= NARROW_MAX).then_some(l | r << 16)
}

fn widen(k: u32) -> Root {
    pair(k & 0xFFFF, k >> 16)
}

/// What a read-only lookup found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// The state is stored.
    Stored,
    /// The state is not stored; this is its root.
    New(Root),
    /// A half of the state has never been seen: it is new, but its root
    /// can only be made by [`TreeStore::root_of`].
    NewHalf,
}

/// Scratch memory of one thread's lookups.
#[derive(Default)]
pub struct Probe {
    buf: Vec<u8>,
}

/// The set of visited states, tree-compressed. It holds no ids: the
/// search keeps the roots of the states it still has to expand.
pub struct TreeStore {
    split: usize,
    halves: [Node; 2],
    roots: RootTable,
}

impl TreeStore {
    /// An empty store for states of `width` ints.
    pub fn new(width: usize) -> TreeStore {
        let split = width / 2;
        TreeStore {
            split,
            halves: [Node::new(split), Node::new(width - split)],
            roots: RootTable::Narrow(Roots::new()),
        }
    }

    /// Number of stored states.
    pub fn len(&self) -> usize {
        match &self.roots {
            RootTable::Narrow(r) => r.len(),
            RootTable::Wide(r) => r.len(),
        }
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of one stored root.
    pub fn root_bytes(&self) -> usize {
        match &self.roots {
            RootTable::Narrow(_) => 4,
            RootTable::Wide(_) => 8,
        }
    }

    /// Whether `state` is stored, without storing anything.
    pub fn look(&self, state: &[i32], probe: &mut Probe) -> Seen {
        let buf = &mut probe.buf;
        let (Some(l), Some(r)) = (
            self.halves[0].find(&state[..self.split], buf),
            self.halves[1].find(&state[self.split..], buf),
        ) else {
            return Seen::NewHalf;
        };
        self.seen(pair(l, r))
    }

    /// [`Self::look`] for a successor of the stored state `near` (with
    /// root `near_root`): a half the step left alone keeps its id, unlooked.
    pub fn look_near(
        &self,
        state: &[i32],
        near: &[i32],
        near_root: Root,
        probe: &mut Probe,
    ) -> Seen {
        let (nl, nr) = unpair(near_root);
        let buf = &mut probe.buf;
        let s = self.split;
        let l = self.halves[0].find_near(&state[..s], &near[..s], nl, buf);
        let r = self.halves[1].find_near(&state[s..], &near[s..], nr, buf);
        match (l, r) {
            (Some(l), Some(r)) => self.seen(pair(l, r)),
            _ => Seen::NewHalf,
        }
    }

    fn seen(&self, root: Root) -> Seen {
        if self.contains(root) {
            Seen::Stored
        } else {
            Seen::New(root)
        }
    }

    /// The root of `state`, storing its halves if they are new; `None`
    /// when the memory for them cannot be had.
    pub fn root_of(&mut self, state: &[i32]) -> Option<Root> {
        let l = self.halves[0].insert(&state[..self.split])?;
        let r = self.halves[1].insert(&state[self.split..])?;
        Some(pair(l, r))
    }

    /// The roots of `states`, in order, storing their halves if they are
    /// new, on up to `threads` threads; the same roots for any number.
    /// `None` when the memory for them cannot be had.
    pub fn roots_of(&mut self, states: &[&[i32]], threads: usize) -> Option<Vec<Root>> {
        let (l, r) = insert_halves(&mut self.halves, self.split, states, threads)?;
        Some(l.into_iter().zip(r).map(|(l, r)| pair(l, r)).collect())
    }

    /// Whether the state with this root is stored.
    pub fn contains(&self, root: Root) -> bool {
        match &self.roots {
            RootTable::Narrow(t) => narrow(root).is_some_and(|k| t.contains(k)),
            RootTable::Wide(t) => t.contains(root),
        }
    }

    /// Whether `bytes` more may be taken for the next insertion: the most
    /// an insertion allocates (a shard's doubling, or the widening of
    /// every root).
    pub fn bytes_to_grow(&self) -> usize {
        match &self.roots {
            // Widening every root comes near only when a half's id does.
            RootTable::Narrow(t) if self.halves.iter().any(|l| l.len() > NARROW_MAX) => {
                t.largest_growth().max(t.heap_bytes() * 2)
            }
            RootTable::Narrow(t) => t.largest_growth(),
            RootTable::Wide(t) => t.largest_growth(),
        }
    }

    /// Stores the state with root `root`, which is not stored yet; false
    /// (and nothing stored) when the memory for it cannot be had. The first
    /// root that needs 64 bits widens the whole store.
    pub fn insert(&mut self, root: Root) -> bool {
        if let RootTable::Narrow(t) = &mut self.roots {
            match narrow(root) {
                Some(k) => return t.insert_new(k),
                None => {
                    if !self.widen_all() {
                        return false;
                    }
                }
            }
        }
        match &mut self.roots {
            RootTable::Wide(t) => t.insert_new(root),
            RootTable::Narrow(_) => false,
        }
    }

    /// The part (of `parts`) whose shards keep `root`: roots of different
    /// parts can be stored on different threads ([`Self::insert_parts`]).
    pub fn part_of(&self, root: Root, parts: usize) -> usize {
        let shard = match &self.roots {
            // A root that needs widening goes anywhere: storing it widens
            // the store, and the parts are then stored on one thread.
            RootTable::Narrow(_) => narrow(root).map_or(0, |k| Roots::<u32>::shard(k.spread())),
            RootTable::Wide(_) => Roots::<u64>::shard(root.spread()),
        };
        part_of_shard(shard, parts.max(1))
    }

    /// Stores the roots of `parts`, none stored yet, list `p` holding roots
    /// of part `p` of `parts.len()` ([`Self::part_of`]), one thread per
    /// part; false when the memory for them cannot be had (some may be
    /// stored then).
    pub fn insert_parts<I>(&mut self, parts: Vec<I>) -> bool
    where
        I: Iterator<Item = Root> + Clone + Send,
    {
        if let RootTable::Narrow(t) = &mut self.roots {
            if parts.iter().all(|l| l.clone().all(|r| narrow(r).is_some())) {
                let keys = parts.into_iter().map(|l| l.map(|r| narrow(r).unwrap_or(0)));
                return t.insert_parts(keys.collect());
            }
            // A root needs 64 bits: widen, then store them one by one.
            return parts.into_iter().flatten().all(|r| self.insert(r));
        }
        match &mut self.roots {
            RootTable::Wide(t) => t.insert_parts(parts),
            RootTable::Narrow(_) => false,
        }
    }

    fn widen_all(&mut self) -> bool {
        let RootTable::Narrow(t) = &self.roots else {
            return true;
        };
        let mut w = Roots::<u64>::new();
        for shard in &t.shards {
            for &k in &shard.slots {
                if k != u32::EMPTY && !w.insert_new(widen(k)) {
                    return false;
                }
            }
        }
        self.roots = RootTable::Wide(w);
        true
    }

    /// Decodes the state with root `root` into `out`.
    pub fn decode(&self, root: Root, out: &mut [i32]) {
        let (l, r) = unpair(root);
        let (a, b) = out.split_at_mut(self.split);
        self.halves[0].get(l, a);
        self.halves[1].get(r, b);
    }

    /// Approximate heap bytes used.
    pub fn heap_bytes(&self) -> usize {
        let roots = match &self.roots {
            RootTable::Narrow(t) => t.heap_bytes(),
            RootTable::Wide(t) => t.heap_bytes(),
        };
        roots + self.halves[0].heap_bytes() + self.halves[1].heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(t: &mut TreeStore, s: &[i32]) -> Root {
        let root = t.root_of(s).unwrap();
        assert!(!t.contains(root));
        assert!(t.insert(root));
        root
    }

    #[test]
    fn stores_decodes_and_finds_states() {
        let mut t = TreeStore::new(5);
        let mut probe = Probe::default();
        let states: Vec<[i32; 5]> = (0..5000).map(|i| [i % 3, i % 11, -i, i / 7, 42]).collect();
        let mut roots = Vec::new();
        for s in &states {
            assert_ne!(t.look(s, &mut probe), Seen::Stored);
            roots.push(store(&mut t, s));
        }
        assert_eq!(t.len(), states.len());
        let mut out = [0; 5];
        for (s, &root) in states.iter().zip(&roots) {
            t.decode(root, &mut out);
            assert_eq!(&out, s);
            assert_eq!(t.look(s, &mut probe), Seen::Stored);
        }
        // A state made of known halves is new with a root; one with an
        // unknown half is new without.
        let mixed = [0, 0, -1, 0, 42];
        assert!(matches!(t.look(&mixed, &mut probe), Seen::New(_)));
        assert_eq!(t.look(&[0, 0, 1, 0, 42], &mut probe), Seen::NewHalf);
        assert_eq!(t.root_bytes(), 4);
    }

    #[test]
    fn widens_when_a_half_needs_more_than_sixteen_bits() {
        let mut t = TreeStore::new(2);
        let n = 70_000;
        let roots: Vec<Root> = (0..n).map(|i| store(&mut t, &[i, 0])).collect();
        assert_eq!(t.root_bytes(), 8);
        assert_eq!(t.len(), n as usize);
        let mut out = [0; 2];
        let mut probe = Probe::default();
        for i in (0..n).step_by(101) {
            t.decode(roots[i as usize], &mut out);
            assert_eq!(out, [i, 0]);
            assert_eq!(t.look(&[i, 0], &mut probe), Seen::Stored);
        }
        assert_eq!(t.look(&[1, 1], &mut probe), Seen::NewHalf);
    }

    #[test]
    fn parts_are_stored_on_threads_of_their_own() {
        // 70,000 distinct left halves: the store widens on the way.
        for parts in [1, 2, 3] {
            let mut t = TreeStore::new(2);
            let mut all = Vec::new();
            for batch in (0..70_000).collect::<Vec<i32>>().chunks(9_000) {
                let mut lists = vec![Vec::new(); parts];
                for &i in batch {
                    let root = t.root_of(&[i, i % 5]).unwrap();
                    assert!(!t.contains(root));
                    lists[t.part_of(root, parts)].push(root);
                    all.push((i, root));
                }
                assert!(t.insert_parts(lists.iter().map(|l| l.iter().copied()).collect()));
            }
            assert_eq!(t.len(), all.len());
            assert_eq!(t.root_bytes(), 8);
            let (mut out, mut probe) = ([0; 2], Probe::default());
            for &(i, root) in &all {
                assert!(t.contains(root));
                t.decode(root, &mut out);
                assert_eq!(out, [i, i % 5]);
                assert_eq!(t.look(&[i, i % 5], &mut probe), Seen::Stored);
            }
            assert_eq!(
                t.look(&[0, 1], &mut probe),
                Seen::New(t.root_of(&[0, 1]).unwrap())
            );
        }
    }

    #[test]
    fn zero_and_one_wide_states() {
        for w in [0, 1] {
            let mut t = TreeStore::new(w);
            let s = vec![7; w];
            store(&mut t, &s);
            assert_eq!(t.look(&s, &mut Probe::default()), Seen::Stored);
        }
    }
}
