//! What a run of rigor runs under, shared by every engine and apart from
//! the transition-system interface ([`crate::system`]): the [`Budget`]
//! (states, time, memory, cancellation), the process's memory (an
//! allocator that fails softly, the address-space limit), its scheduling
//! priority, and a parallel map over the threads asked for.

pub mod budget;
pub mod memory;
pub mod par;
pub mod priority;

pub use budget::{
    peak_resident_bytes, resident_bytes, total_memory, Budget, Cancel, LimitError, StopReason,
    INTERRUPT_GRACE,
};
pub use par::par_map;
