//! The parts of a state under the tree store's root ([`super::tree`]),
//! each interned once: a narrow part as a packed row ([`StateStore`]), a
//! wide one as the pair of its two halves' ids, recursively. This is
//! LTSmin's tree compression below the root: a step that changes a few
//! slots makes at most one new node per level, of eight bytes, where a
//! flat half would store a whole new row.

use hashbrown::HashTable;

use super::store::StateStore;

/// Widest part (in ints) kept as one packed row; wider parts are split.
/// (2019 training P11, 33 ints: its 17-int half as one row is 2-3 % faster
/// than as a pair of rows; a 30-int half, as in 2019 challenge P14, is
/// split.)
const LEAF_WIDTH: usize = 20;

/// Fewest parts whose halves [`Node::insert_all`] stores on two threads.
const PARALLEL_PARTS: usize = 256;

/// Stores `parts` into `halves` on up to `threads` threads: the two halves
/// of a wide part live in nodes of their own, so they are stored side by
/// side, and each node takes its parts in the order given, so its ids are
/// the same for any number of threads. `None` when the memory for them
/// cannot be had (some may be stored then).
pub fn insert_halves(
    halves: &mut [Node; 2],
    split: usize,
    parts: &[&[i32]],
    threads: usize,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let lefts: Vec<&[i32]> = parts.iter().map(|p| &p[..split]).collect();
    let rights: Vec<&[i32]> = parts.iter().map(|p| &p[split..]).collect();
    let [a, b] = halves;
    if threads < 2 || parts.len() < PARALLEL_PARTS {
        return Some((a.insert_all(&lefts, 1)?, b.insert_all(&rights, 1)?));
    }
    std::thread::scope(|scope| {
        let left = scope.spawn(|| a.insert_all(&lefts, threads / 2));
        let right = b.insert_all(&rights, threads - threads / 2);
        let left = left.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        Some((left?, right?))
    })
}

/// One interned part of a state, of a fixed width.
pub enum Node {
    /// A part stored as packed rows.
    Leaf(StateStore),
    /// A part stored as pairs of its halves' ids.
    Pair(Box<Pairs>),
}

/// The pairs of a wide part: the left half's id in the low 32 bits.
pub struct Pairs {
    split: usize,
    halves: [Node; 2],
    pairs: Vec<u64>,
    /// Ids into `pairs`, hashed by their pair.
    index: HashTable<u32>,
}

/// The finaliser of splitmix64: every input bit moves every output bit.
pub fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Two ids as one pair: the left one in the low 32 bits (the pairs of a
/// node, and the tree store's roots).
pub fn pair(l: u32, r: u32) -> u64 {
    l as u64 | (r as u64) << 32
}

/// The two ids of a [`pair`].
pub fn unpair(p: u64) -> (u32, u32) {
    (p as u32, (p >> 32) as u32)
}

impl Pairs {
    fn find(&self, p: u64) -> Option<u32> {
        let pairs = &self.pairs;
        self.index
            .find(mix(p), |&id| pairs[id as usize] == p)
            .copied()
    }

    /// The id of pair `p`, stored if it is new; `None` when the memory
    /// for it cannot be had.
    fn insert(&mut self, p: u64) -> Option<u32> {
        let hash = |&id: &u32| mix(self.pairs[id as usize]);
        self.index.try_reserve(1, hash).ok()?;
        self.pairs.try_reserve(1).ok()?;
        // One probe finds the pair or the slot it goes in.
        let pairs = &self.pairs;
        let entry = (self.index).entry(
            mix(p),
            |&id| pairs[id as usize] == p,
            |&id| mix(pairs[id as usize]),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => Some(*e.get()),
            hashbrown::hash_table::Entry::Vacant(e) => {
                let id = pairs.len() as u32;
                e.insert(id);
                self.pairs.push(p);
                Some(id)
            }
        }
    }

    fn halves_of(&self, id: u32) -> (u32, u32) {
        unpair(self.pairs[id as usize])
    }
}

impl Node {
    /// An empty node for parts of `width` ints.
    pub fn new(width: usize) -> Node {
        if width <= LEAF_WIDTH {
            return Node::Leaf(StateStore::new(width));
        }
        let split = width / 2;
        Node::Pair(Box::new(Pairs {
            split,
            halves: [Node::new(split), Node::new(width - split)],
            pairs: Vec::new(),
            index: HashTable::new(),
        }))
    }

    /// Number of distinct parts stored.
    pub fn len(&self) -> u32 {
        match self {
            Node::Leaf(s) => s.len(),
            Node::Pair(p) => p.pairs.len() as u32,
        }
    }

    /// Whether no part is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of `part`, if it is stored; `buf` is scratch memory, so that
    /// lookups can share the node.
    pub fn find(&self, part: &[i32], buf: &mut Vec<u8>) -> Option<u32> {
        match self {
            Node::Leaf(s) => s.find(part, buf),
            Node::Pair(p) => {
                let l = p.halves[0].find(&part[..p.split], buf)?;
                let r = p.halves[1].find(&part[p.split..], buf)?;
                p.find(pair(l, r))
            }
        }
    }

    /// [`Self::find`] for a part near the stored part `near` (with id
    /// `near_id`): the halves they share keep their ids, unlooked.
    pub fn find_near(
        &self,
        part: &[i32],
        near: &[i32],
        near_id: u32,
        buf: &mut Vec<u8>,
    ) -> Option<u32> {
        if part == near {
            return Some(near_id);
        }
        match self {
            Node::Leaf(s) => s.find(part, buf),
            Node::Pair(p) => {
                let s = p.split;
                let (nl, nr) = p.halves_of(near_id);
                let l = p.halves[0].find_near(&part[..s], &near[..s], nl, buf)?;
                let r = p.halves[1].find_near(&part[s..], &near[s..], nr, buf)?;
                p.find(pair(l, r))
            }
        }
    }

    /// The id of `part`, stored if it is new; `None` when the memory for
    /// it cannot be had.
    pub fn insert(&mut self, part: &[i32]) -> Option<u32> {
        match self {
            Node::Leaf(s) => s.try_make_room(1).then(|| s.insert(part).0),
            Node::Pair(p) => {
                let l = p.halves[0].insert(&part[..p.split])?;
                let r = p.halves[1].insert(&part[p.split..])?;
                p.insert(pair(l, r))
            }
        }
    }

    /// The ids of `parts`, each stored if it is new, in order, on up to
    /// `threads` threads ([`insert_halves`]); `None` when the memory for
    /// them cannot be had.
    pub fn insert_all(&mut self, parts: &[&[i32]], threads: usize) -> Option<Vec<u32>> {
        match self {
            Node::Pair(p) => {
                let (l, r) = insert_halves(&mut p.halves, p.split, parts, threads)?;
                l.into_iter()
                    .zip(r)
                    .map(|(l, r)| p.insert(pair(l, r)))
                    .collect()
            }
            Node::Leaf(_) => parts.iter().map(|part| self.insert(part)).collect(),
        }
    }

    /// Decodes the part with id `id` into `out`.
    pub fn get(&self, id: u32, out: &mut [i32]) {
        match self {
            Node::Leaf(s) => s.get(id, out),
            Node::Pair(p) => {
                let (l, r) = p.halves_of(id);
                let (a, b) = out.split_at_mut(p.split);
                p.halves[0].get(l, a);
                p.halves[1].get(r, b);
            }
        }
    }

    /// Approximate heap bytes used.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Node::Leaf(s) => s.heap_bytes(),
            Node::Pair(p) => {
                p.pairs.capacity() * 8
                    + p.index.capacity() * 5
                    + p.halves.iter().map(Node::heap_bytes).sum::<usize>()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_parts_are_pairs_that_decode_and_are_found_near_or_not() {
        for width in [0, 1, LEAF_WIDTH, LEAF_WIDTH + 1, 61, 178] {
            let mut node = Node::new(width);
            assert_eq!(matches!(node, Node::Pair(_)), width > LEAF_WIDTH);
            let parts: Vec<Vec<i32>> = (0..3_000)
                .map(|i| (0..width as i32).map(|s| (i * (s + 1)) % 7 - s).collect())
                .collect();
            let slices: Vec<&[i32]> = parts.iter().map(Vec::as_slice).collect();
            let ids = node.insert_all(&slices, 3).expect("room");
            let mut serial = Node::new(width);
            let serial_ids = serial.insert_all(&slices, 1).expect("room");
            assert_eq!(serial_ids, ids, "the same ids on one thread");
            let mut buf = Vec::new();
            let mut out = vec![0; width];
            for (k, (p, &id)) in parts.iter().zip(&ids).enumerate() {
                assert_eq!(node.insert(p), Some(id));
                assert_eq!(node.find(p, &mut buf), Some(id));
                node.get(id, &mut out);
                assert_eq!(&out, p);
                // Near any other stored part, the same id.
                let j = (k * 7) % parts.len();
                assert_eq!(node.find_near(p, &parts[j], ids[j], &mut buf), Some(id));
            }
            assert_eq!(node.len() as usize, {
                let mut d = parts.clone();
                d.sort();
                d.dedup();
                d.len()
            });
            if width > 0 {
                let mut unseen = parts[0].clone();
                unseen[width - 1] = 1_000;
                assert_eq!(node.find(&unseen, &mut buf), None);
                assert_eq!(node.find_near(&unseen, &parts[0], ids[0], &mut buf), None);
            }
        }
    }
}
