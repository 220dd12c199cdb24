//! Compact storage of visited states with exact lookup.
//!
//! States are vectors of ints, but RERS variables take few distinct values:
//! each slot's values are interned per slot (a small dictionary) and the
//! state is stored as a packed row of codes, one or two bytes per slot
//! depending on how many values that slot has shown so far. When a slot
//! outgrows one byte, all stored rows are re-packed once (rare). The hash
//! table holds only 32-bit state ids; hashes are recomputed from the packed
//! rows, so nothing is lossy: two states are merged only if equal.

use hashbrown::HashTable;
use rustc_hash::FxHashMap;
use std::hash::{BuildHasher, Hasher};

/// Values in `SMALL_MIN..SMALL_MIN + SMALL_LEN` are looked up in a direct
/// table (most RERS variables live there); others in a hash map.
const SMALL_MIN: i32 = -256;
const SMALL_LEN: usize = 1024;

/// Per-slot value dictionary.
#[derive(Clone, Debug, Default)]
struct SlotDict {
    /// `code + 1` of small values (0: not seen yet); allocated on first use.
    small: Vec<u32>,
    codes: FxHashMap<i32, u32>,
    values: Vec<i32>,
}

impl SlotDict {
    #[inline(always)]
    fn lookup(&self, v: i32) -> Option<u32> {
        let k = v.wrapping_sub(SMALL_MIN) as u32 as usize;
        if k < SMALL_LEN {
            match self.small.get(k) {
                Some(&c) if c != 0 => Some(c - 1),
                _ => None,
            }
        } else {
            self.codes.get(&v).copied()
        }
    }

    fn add(&mut self, v: i32) -> u32 {
        let c = self.values.len() as u32;
        self.values.push(v);
        let k = v.wrapping_sub(SMALL_MIN) as u32 as usize;
        if k < SMALL_LEN {
            if self.small.is_empty() {
                self.small = vec![0; SMALL_LEN];
            }
            self.small[k] = c + 1;
        } else {
            self.codes.insert(v, c);
        }
        c
    }
}

/// The set of visited states, each with a dense id (insertion order).
pub struct StateStore {
    width: usize,
    dicts: Vec<SlotDict>,
    /// Bytes per slot code (1, 2 or 4) for each slot.
    code_bytes: Vec<u8>,
    /// Byte offset of each slot in a row.
    offsets: Vec<usize>,
    row_bytes: usize,
    rows: Vec<u8>,
    table: HashTable<u32>,
    hasher: rustc_hash::FxBuildHasher,
    /// Scratch buffer for encoding.
    enc: Vec<u8>,
    /// Scratch codes of the state being encoded.
    codes: Vec<u32>,
    len: u32,
}

impl StateStore {
    /// An empty store for states of `width` ints.
    pub fn new(width: usize) -> StateStore {
        let mut s = StateStore {
            width,
            dicts: vec![SlotDict::default(); width],
            code_bytes: vec![1; width],
            offsets: Vec::new(),
            row_bytes: 0,
            rows: Vec::new(),
            table: HashTable::new(),
            hasher: rustc_hash::FxBuildHasher,
            enc: Vec::new(),
            codes: vec![0; width],
            len: 0,
        };
        s.recompute_offsets();
        s
    }

    fn recompute_offsets(&mut self) {
        self.offsets.clear();
        let mut o = 0;
        for &b in &self.code_bytes {
            self.offsets.push(o);
            o += b as usize;
        }
        self.row_bytes = o.max(1);
        self.enc.resize(self.row_bytes, 0);
    }

    /// Number of stored states.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Approximate heap bytes used.
    pub fn heap_bytes(&self) -> usize {
        self.rows.capacity()
            + self.table.capacity() * 4
            + self
                .dicts
                .iter()
                .map(|d| d.values.capacity() * 16 + d.small.capacity() * 4)
                .sum::<usize>()
    }

    /// Bytes per stored state row.
    pub fn row_bytes(&self) -> usize {
        self.row_bytes
    }

    fn hash_row(hasher: &rustc_hash::FxBuildHasher, row: &[u8]) -> u64 {
        let mut h = hasher.build_hasher();
        h.write(row);
        h.finish()
    }

    /// Encodes `state` into `self.enc`, growing dictionaries (and re-packing
    /// rows when a slot needs wider codes).
    fn encode(&mut self, state: &[i32]) {
        debug_assert_eq!(state.len(), self.width);
        let mut widened = false;
        for (i, &v) in state.iter().enumerate() {
            let d = &mut self.dicts[i];
            self.codes[i] = match d.lookup(v) {
                Some(c) => c,
                None => {
                    let c = d.add(v);
                    let need = if c < 256 {
                        1
                    } else if c < 65536 {
                        2
                    } else {
                        4
                    };
                    if need > self.code_bytes[i] {
                        self.code_bytes[i] = need;
                        widened = true;
                    }
                    c
                }
            };
        }
        if widened {
            self.repack();
        }
        for i in 0..self.width {
            let c = self.codes[i];
            let o = self.offsets[i];
            match self.code_bytes[i] {
                1 => self.enc[o] = c as u8,
                2 => self.enc[o..o + 2].copy_from_slice(&(c as u16).to_le_bytes()),
                _ => self.enc[o..o + 4].copy_from_slice(&c.to_le_bytes()),
            }
        }
    }

    /// Re-packs every stored row after code widths changed.
    fn repack(&mut self) {
        let old_offsets = self.offsets.clone();
        let old_row = self.row_bytes;
        let old_widths: Vec<u8> = {
            // Widths before the change: derive from old offsets.
            let mut w = Vec::with_capacity(self.width);
            for i in 0..self.width {
                let end = if i + 1 < self.width {
                    old_offsets[i + 1]
                } else {
                    old_row
                };
                w.push((end - old_offsets[i]) as u8);
            }
            w
        };
        self.recompute_offsets();
        let n = self.len as usize;
        let mut rows = vec![0u8; n * self.row_bytes];
        for r in 0..n {
            let src = &self.rows[r * old_row..(r + 1) * old_row];
            let dst = &mut rows[r * self.row_bytes..(r + 1) * self.row_bytes];
            for i in 0..self.width {
                let c = read_code(&src[old_offsets[i]..], old_widths[i]);
                write_code(&mut dst[self.offsets[i]..], self.code_bytes[i], c);
            }
        }
        self.rows = rows;
        // Rehash everything.
        let mut table = HashTable::with_capacity(self.table.capacity());
        let rb = self.row_bytes;
        let rows = &self.rows;
        let hasher = &self.hasher;
        for id in 0..self.len {
            let row = &rows[id as usize * rb..(id as usize + 1) * rb];
            let h = Self::hash_row(hasher, row);
            table.insert_unique(h, id, |&other| {
                Self::hash_row(
                    hasher,
                    &rows[other as usize * rb..(other as usize + 1) * rb],
                )
            });
        }
        self.table = table;
    }

    /// Bytes the store would allocate to make room for `n` more states (0
    /// when it has the room): the doubling of its rows and of its table.
    pub fn bytes_to_grow(&self, n: usize) -> usize {
        let rb = self.row_bytes;
        let rows = if self.rows.capacity() - self.rows.len() < n * rb {
            self.rows.capacity().max(n * rb)
        } else {
            0
        };
        let table = if self.table.capacity() - self.table.len() < n {
            // Twice the buckets, each an id and a control byte.
            2 * self.table.capacity().max(n) * 5
        } else {
            0
        };
        rows + table
    }

    /// Makes room for `n` more states without another allocation; false
    /// when the memory for it cannot be had (the store is unchanged).
    pub fn try_make_room(&mut self, n: usize) -> bool {
        let rb = self.row_bytes;
        let (rows, hasher) = (&self.rows, &self.hasher);
        self.table
            .try_reserve(n, |&id| {
                Self::hash_row(hasher, &rows[id as usize * rb..(id as usize + 1) * rb])
            })
            .is_ok()
            && self.rows.try_reserve(n * rb).is_ok()
    }

    /// Looks `state` up; inserts it if new. Returns `(id, inserted)`.
    pub fn insert(&mut self, state: &[i32]) -> (u32, bool) {
        self.encode(state);
        let rb = self.row_bytes;
        let h = Self::hash_row(&self.hasher, &self.enc);
        let rows = &self.rows;
        let enc = &self.enc;
        let hasher = &self.hasher;
        if let Some(&id) = self.table.find(h, |&id| {
            &rows[id as usize * rb..(id as usize + 1) * rb] == enc.as_slice()
        }) {
            return (id, false);
        }
        let id = self.len;
        self.rows.extend_from_slice(&self.enc);
        self.len += 1;
        let rows = &self.rows;
        self.table.insert_unique(h, id, |&other| {
            Self::hash_row(
                hasher,
                &rows[other as usize * rb..(other as usize + 1) * rb],
            )
        });
        (id, true)
    }

    /// Looks `state` up without storing anything: its id if it is stored.
    /// `buf` is scratch memory, so that lookups can share the store.
    pub fn find(&self, state: &[i32], buf: &mut Vec<u8>) -> Option<u32> {
        debug_assert_eq!(state.len(), self.width);
        buf.resize(self.row_bytes, 0);
        for (i, &v) in state.iter().enumerate() {
            let c = self.dicts[i].lookup(v)?;
            write_code(&mut buf[self.offsets[i]..], self.code_bytes[i], c);
        }
        let rb = self.row_bytes;
        let rows = &self.rows;
        let h = Self::hash_row(&self.hasher, buf);
        self.table
            .find(h, |&id| {
                &rows[id as usize * rb..(id as usize + 1) * rb] == buf.as_slice()
            })
            .copied()
    }

    /// Decodes state `id` into `out`.
    pub fn get(&self, id: u32, out: &mut [i32]) {
        let rb = self.row_bytes;
        let row = &self.rows[id as usize * rb..(id as usize + 1) * rb];
        for i in 0..self.width {
            let c = read_code(&row[self.offsets[i]..], self.code_bytes[i]);
            out[i] = self.dicts[i].values[c as usize];
        }
    }
}

fn read_code(b: &[u8], width: u8) -> u32 {
    match width {
        1 => b[0] as u32,
        2 => u16::from_le_bytes([b[0], b[1]]) as u32,
        _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

fn write_code(b: &mut [u8], width: u8, c: u32) {
    match width {
        1 => b[0] = c as u8,
        2 => b[..2].copy_from_slice(&(c as u16).to_le_bytes()),
        _ => b[..4].copy_from_slice(&c.to_le_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_and_get_roundtrip_with_widening() {
        let mut s = StateStore::new(3);
        let mut ids = Vec::new();
        for i in 0..70_000i32 {
            let st = [i % 7, i, -i / 3];
            let (id, new) = s.insert(&st);
            assert!(new);
            ids.push((id, st));
        }
        for (id, st) in &ids {
            let mut out = [0; 3];
            s.get(*id, &mut out);
            assert_eq!(&out, st);
            assert_eq!(s.insert(st), (*id, false));
        }
        assert_eq!(s.len(), 70_000);
        let mut buf = Vec::new();
        for (id, st) in ids.iter().step_by(97) {
            assert_eq!(s.find(st, &mut buf), Some(*id));
        }
        assert_eq!(s.find(&[3, -1, 5], &mut buf), None);
        assert_eq!(s.find(&[0, 7, 99_999], &mut buf), None);
    }

    #[test]
    fn zero_width_states() {
        let mut s = StateStore::new(0);
        assert_eq!(s.insert(&[]), (0, true));
        assert_eq!(s.insert(&[]), (0, false));
    }
}
