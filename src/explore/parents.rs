//! The way back to every state of the level-synchronous search, in two
//! bytes per state instead of a parent link and an input.
//!
//! States get ids in breadth-first order, and the children of a state
//! (the states it discovered first) take consecutive ids; so the number
//! of children of each state, with a checkpoint every 64 states, finds any
//! state's parent, and one byte per state keeps the input taken from it.

use crate::system::StateId;

/// States between two checkpoints.
const CHECKPOINT: usize = 64;

/// Children counts and inputs of every state.
pub struct Parents {
    /// The number of children of every expanded state.
    children: Vec<u8>,
    /// The id of the first child of every `CHECKPOINT`-th state.
    checkpoints: Vec<u32>,
    /// The id of the first child of the next state counted.
    next_first: u32,
    /// The input from its parent that discovered each state.
    inputs: Vec<u8>,
}

impl Default for Parents {
    fn default() -> Parents {
        Parents::new()
    }
}

impl Parents {
    /// The way back of a search that has only its initial state, id 0.
    pub fn new() -> Parents {
        Parents {
            children: Vec::new(),
            checkpoints: Vec::new(),
            next_first: 1,
            inputs: vec![0],
        }
    }

    /// Records the next state: discovered by `input` from its parent.
    /// Room must have been made ([`Self::make_room`]).
    pub fn discovered(&mut self, input: u8) {
        self.inputs.push(input);
    }

    /// Makes room for `n` more states; false when the memory cannot be had.
    pub fn make_room(&mut self, n: usize) -> bool {
        self.inputs.try_reserve(n).is_ok()
    }

    /// Counts the children of the next expanded states, in id order; false
    /// when the memory cannot be had.
    pub fn count(&mut self, children: &[u8]) -> bool {
        if self.children.try_reserve(children.len()).is_err()
            || (self.checkpoints)
                .try_reserve(children.len() / CHECKPOINT + 1)
                .is_err()
        {
            return false;
        }
        for &c in children {
            if self.children.len().is_multiple_of(CHECKPOINT) {
                self.checkpoints.push(self.next_first);
            }
            self.children.push(c);
            self.next_first += c as u32;
        }
        true
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.children.capacity() + self.checkpoints.capacity() * 4 + self.inputs.capacity()
    }

    /// The parent of state `c` (not the initial state), once its parent's
    /// children are counted.
    pub fn parent(&self, c: StateId) -> StateId {
        let k = self.checkpoints.partition_point(|&f| f <= c) - 1;
        let mut p = k * CHECKPOINT;
        let mut first = self.checkpoints[k];
        loop {
            let n = self.children[p] as u32;
            if first + n > c {
                return p as StateId;
            }
            first += n;
            p += 1;
        }
    }

    /// The input sequence from the initial state to `s`.
    pub fn path_to(&self, mut s: StateId) -> Vec<usize> {
        let mut path = Vec::new();
        while s != 0 {
            path.push(self.inputs[s as usize] as usize);
            s = self.parent(s);
        }
        path.reverse();
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_and_paths_come_back_from_the_counts() {
        // A tree given by parent links, ids in breadth-first order.
        let parent: Vec<u32> = vec![0, 0, 0, 1, 1, 1, 2, 5, 5];
        let mut p = Parents::new();
        for (s, &q) in parent.iter().enumerate().skip(1) {
            p.discovered((s % 3) as u8 + q as u8);
        }
        let children: Vec<u8> = (0..parent.len())
            .map(|s| parent.iter().skip(1).filter(|&&q| q as usize == s).count() as u8)
            .collect();
        p.count(&children);
        for (s, &q) in parent.iter().enumerate().skip(1) {
            assert_eq!(p.parent(s as u32), q);
        }
        assert_eq!(p.path_to(8), vec![1, 3, 7]);
        assert_eq!(p.path_to(0), Vec::<usize>::new());
    }

    #[test]
    fn checkpoints_skip_childless_states() {
        // 200 states in a chain of levels, most without children.
        let mut p = Parents::new();
        let mut children = vec![0u8; 200];
        children[0] = 1;
        children[150] = 2;
        for _ in 0..3 {
            p.discovered(0);
        }
        p.count(&children);
        assert_eq!(p.parent(1), 0);
        assert_eq!(p.parent(2), 150);
        assert_eq!(p.parent(3), 150);
    }
}
