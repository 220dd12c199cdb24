//! A worker's per-state numbers (each state's global id, and its parent's
//! global id with the input), in a byte or two per state instead of eight.
//!
//! A worker stores each level's new states in the order of their global
//! ids, and their parents' ids grow with them, so consecutive numbers are
//! close: each is written as the variable-length difference to the
//! previous one (signed, zigzag LEB128), and every [`BLOCK`]-th number is
//! kept whole, so a number is found by decoding at most `BLOCK - 1`
//! differences, and in an increasing log a number's index by a binary
//! search over the whole ones. Lookups happen only when witnesses are
//! traced back, so they are rare.

/// Numbers between two whole ones.
const BLOCK: usize = 64;

/// A sequence of numbers, by index, delta-encoded.
#[derive(Default)]
pub struct DeltaLog {
    /// Differences of every number to the previous one; none for the
    /// first number of a block.
    deltas: Vec<u8>,
    /// The first number of every block.
    firsts: Vec<u128>,
    /// Where every block's differences start in `deltas`.
    offsets: Vec<u64>,
    /// The last number pushed.
    last: u128,
    len: u64,
}

impl DeltaLog {
    /// Number of numbers pushed.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Appends `n`; false (and nothing appended) when the memory for it
    /// cannot be had.
    pub fn push(&mut self, n: u128) -> bool {
        if (self.len as usize).is_multiple_of(BLOCK) {
            if self.firsts.try_reserve(1).is_err() || self.offsets.try_reserve(1).is_err() {
                return false;
            }
            self.firsts.push(n);
            self.offsets.push(self.deltas.len() as u64);
        } else {
            if self.deltas.try_reserve(19).is_err() {
                return false;
            }
            let d = n.wrapping_sub(self.last) as i128;
            let mut z = ((d << 1) ^ (d >> 127)) as u128;
            loop {
                let byte = (z & 0x7F) as u8;
                z >>= 7;
                if z == 0 {
                    self.deltas.push(byte);
                    break;
                }
                self.deltas.push(byte | 0x80);
            }
        }
        self.last = n;
        self.len += 1;
        true
    }

    /// The numbers of block `block`, in order.
    fn block(&self, block: usize) -> impl Iterator<Item = u128> + '_ {
        let count = (self.len as usize - block * BLOCK).min(BLOCK);
        let mut n = self.firsts[block];
        let mut at = self.offsets[block] as usize;
        (0..count).map(move |k| {
            if k > 0 {
                let mut z = 0u128;
                let mut shift = 0;
                loop {
                    let byte = self.deltas[at];
                    at += 1;
                    z |= ((byte & 0x7F) as u128) << shift;
                    shift += 7;
                    if byte & 0x80 == 0 {
                        break;
                    }
                }
                let d = (z >> 1) as i128 ^ -((z & 1) as i128);
                n = n.wrapping_add(d as u128);
            }
            n
        })
    }

    /// The number at `index` (below [`Self::len`]).
    pub fn get(&self, index: u64) -> u128 {
        let block = index as usize / BLOCK;
        let skip = index as usize % BLOCK;
        self.block(block).nth(skip).unwrap_or(0)
    }

    /// The index of `n`, in a log whose numbers increase.
    pub fn find(&self, n: u128) -> Option<u64> {
        let block = self.firsts.partition_point(|&f| f <= n).checked_sub(1)?;
        let k = self.block(block).position(|m| m == n)?;
        Some((block * BLOCK + k) as u64)
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.deltas.capacity() + self.firsts.capacity() * 16 + self.offsets.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_comes_back() {
        // Runs that grow, a drop, a far number and a drop back to 0.
        let mut numbers: Vec<u128> = (0..5u128)
            .flat_map(|level| (level * 400..level * 400 + 300).step_by(3))
            .collect();
        numbers.extend([7, u128::MAX / 16, 0, 5]);
        let mut log = DeltaLog::default();
        for &n in &numbers {
            assert!(log.push(n));
        }
        assert_eq!(log.len(), numbers.len() as u64);
        for (k, &n) in numbers.iter().enumerate() {
            assert_eq!(log.get(k as u64), n, "index {k}");
        }
    }

    #[test]
    fn an_increasing_log_finds_its_numbers_and_no_others() {
        let mut log = DeltaLog::default();
        let numbers: Vec<u128> = (0..1000u128).map(|k| k * k + 3 * k).collect();
        for &n in &numbers {
            assert!(log.push(n));
        }
        for (k, &n) in numbers.iter().enumerate() {
            assert_eq!(log.find(n), Some(k as u64));
            assert_eq!(log.find(n + 1), None, "{}", n + 1);
        }
        assert_eq!(log.find(u128::MAX), None);
    }

    #[test]
    fn close_numbers_take_about_a_byte() {
        let mut log = DeltaLog::default();
        for k in 0..100_000u128 {
            assert!(log.push(k * 5 + k % 2));
        }
        // A byte each and a whole number per block, in vectors that double.
        assert!(
            log.heap_bytes() < 2 * 100_000 + 50_000,
            "{} bytes",
            log.heap_bytes()
        );
    }
}
