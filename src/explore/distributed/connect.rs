//! The processes of a cluster connect to each other, and agree that they
//! belong to one run, before timely takes the connections over.
//!
//! Timely's own set-up connects process `k` to every process below it and
//! accepts the ones above, each sending its index; it trusts whatever
//! connects (an index out of range makes it panic, another run's process
//! would be taken in). Here each connection starts with a greeting both
//! ways: a magic line, the sender's process index, and its
//! [`Identity`] (a hash of the run id, the program's fingerprint, the
//! worker threads). A connection whose greeting is not rigor's is dropped
//! and the wait goes on; a process of another run, another program or
//! another thread count ends the run with [`ConnectError::Mismatch`]
//! before any state is exchanged, on both sides (each reads the other's
//! greeting). The connected sockets are then handed to timely.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// The first bytes of every greeting.
const MAGIC: &[u8; 16] = b"rigor-cluster 1\n";

/// How long a greeting may take to arrive once a connection is open.
const GREETING_LIMIT: Duration = Duration::from_secs(10);

/// What the processes of one run must agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identity {
    /// A hash of the run id.
    pub run: u64,
    /// The program's [`crate::ir::Program::fingerprint`].
    pub program: u64,
    /// Worker threads per process.
    pub threads: u64,
}

/// Why the processes could not be connected.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A socket could not be opened, or a connection failed.
    #[error("{address}: {source}")]
    Io {
        /// The address it concerned.
        address: String,
        /// What the system said.
        source: io::Error,
    },
    /// A process did not answer before the connection limit.
    #[error("process {process} ({address}) did not connect within {seconds} s")]
    Absent {
        /// Its index.
        process: usize,
        /// Its address.
        address: String,
        /// The limit.
        seconds: u64,
    },
    /// A process belongs to another run, runs another program or another
    /// number of threads.
    #[error("process {process} {differs}; no state was exchanged")]
    Mismatch {
        /// Its index.
        process: usize,
        /// What differs.
        differs: &'static str,
    },
}

/// The greeting: magic, index, identity.
fn greeting(index: usize, id: Identity) -> Vec<u8> {
    let mut g = MAGIC.to_vec();
    for v in [index as u64, id.run, id.program, id.threads] {
        g.extend_from_slice(&v.to_le_bytes());
    }
    g
}

/// Reads a greeting: the sender's index and identity, or `None` when what
/// arrived is not one.
fn read_greeting(s: &mut TcpStream) -> io::Result<Option<(usize, Identity)>> {
    let mut buf = [0u8; 16 + 32];
    s.set_read_timeout(Some(GREETING_LIMIT))?;
    let read = s.read_exact(&mut buf);
    s.set_read_timeout(None)?;
    match read {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    if &buf[..16] != MAGIC {
        return Ok(None);
    }
    let word =
        |k: usize| u64::from_le_bytes(buf[16 + 8 * k..24 + 8 * k].try_into().unwrap_or_default());
    let id = Identity {
        run: word(1),
        program: word(2),
        threads: word(3),
    };
    Ok(Some((word(0) as usize, id)))
}

/// How `theirs` differs from `mine`, if it does.
fn differs(mine: Identity, theirs: Identity) -> Option<&'static str> {
    if theirs.run != mine.run {
        Some("belongs to another run (another --run-id)")
    } else if theirs.program != mine.program {
        Some("runs another program")
    } else if theirs.threads != mine.threads {
        Some("runs another number of threads (--threads)")
    } else {
        None
    }
}

/// Connects process `me` to every other process of `addresses` (this
/// one's entry `None`), greeting each, within `limit` for the whole.
pub fn connect(
    addresses: &[String],
    me: usize,
    id: Identity,
    limit: Duration,
) -> Result<Vec<Option<TcpStream>>, ConnectError> {
    let until = Instant::now() + limit;
    let io_at = |address: &str| {
        let address = address.to_string();
        move |source| ConnectError::Io { address, source }
    };
    let listener = TcpListener::bind(&addresses[me]).map_err(io_at(&addresses[me]))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    // The processes below: connect, greet, read their greeting.
    for (k, address) in addresses.iter().enumerate().take(me) {
        let mut s = loop {
            match TcpStream::connect(address) {
                Ok(s) => break s,
                Err(_) if Instant::now() < until => std::thread::sleep(Duration::from_millis(200)),
                Err(_) => return Err(absent(k, address, limit)),
            }
        };
        s.set_nodelay(true).map_err(io_at(address))?;
        s.write_all(&greeting(me, id)).map_err(io_at(address))?;
        match read_greeting(&mut s).map_err(io_at(address))? {
            Some((index, theirs)) if index == k => {
                if let Some(differs) = differs(id, theirs) {
                    return Err(ConnectError::Mismatch {
                        process: k,
                        differs,
                    });
                }
            }
            _ => {
                let wrong = io::Error::new(io::ErrorKind::InvalidData, "not a rigor process");
                return Err(io_at(address)(wrong));
            }
        }
        sockets[k] = Some(s);
    }
    // The processes above: accept, read their greeting, greet back.
    listener
        .set_nonblocking(true)
        .map_err(io_at(&addresses[me]))?;
    while sockets.iter().skip(me + 1).any(Option::is_none) {
        let mut s = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= until {
                    let k = (me + 1..addresses.len()).find(|&k| sockets[k].is_none());
                    let k = k.unwrap_or(me + 1);
                    return Err(absent(k, &addresses[k], limit));
                }
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
            Err(e) => return Err(io_at(&addresses[me])(e)),
        };
        s.set_nonblocking(false).map_err(io_at(&addresses[me]))?;
        s.set_nodelay(true).map_err(io_at(&addresses[me]))?;
        // Whatever is not a greeting of a process above that has not
        // connected yet is dropped: the wait goes on.
        let Ok(Some((k, theirs))) = read_greeting(&mut s) else {
            continue;
        };
        if k <= me || k >= addresses.len() || sockets[k].is_some() {
            continue;
        }
        // The greeting back lets the other side see any mismatch too.
        s.write_all(&greeting(me, id))
            .map_err(io_at(&addresses[k]))?;
        if let Some(differs) = differs(id, theirs) {
            return Err(ConnectError::Mismatch {
                process: k,
                differs,
            });
        }
        sockets[k] = Some(s);
    }
    Ok(sockets)
}

/// Hands `bytes` from the last process to every other over the connected
/// `sockets`, before timely takes them: the last process (`me`) sends
/// them, length first, and returns them; every other reads what the last
/// sends until `deadline` and returns that.
pub fn hand_out(
    sockets: &mut [Option<TcpStream>],
    me: usize,
    bytes: &[u8],
    deadline: Instant,
) -> Result<Vec<u8>, ConnectError> {
    let last = sockets.len().saturating_sub(1);
    let io = |k: usize| {
        move |source| ConnectError::Io {
            address: format!("process {k}"),
            source,
        }
    };
    if me == last {
        for (k, s) in sockets.iter_mut().enumerate() {
            if let Some(s) = s {
                s.write_all(&(bytes.len() as u64).to_le_bytes())
                    .and_then(|()| s.write_all(bytes))
                    .map_err(io(k))?;
            }
        }
        return Ok(bytes.to_vec());
    }
    let Some(s) = sockets.get_mut(last).and_then(Option::as_mut) else {
        return Ok(Vec::new());
    };
    let wait = deadline.saturating_duration_since(Instant::now());
    // A zero timeout would mean none.
    s.set_read_timeout(Some(wait.max(Duration::from_millis(1))))
        .map_err(io(last))?;
    let mut length = [0u8; 8];
    s.read_exact(&mut length).map_err(io(last))?;
    let length = u64::from_le_bytes(length);
    let mut got = Vec::new();
    // What arrives, not what the length claims, takes the memory.
    let read = (&mut *s)
        .take(length)
        .read_to_end(&mut got)
        .map_err(io(last))?;
    s.set_read_timeout(None).map_err(io(last))?;
    if read as u64 != length {
        let short = io::Error::new(io::ErrorKind::UnexpectedEof, "the hand-out was cut short");
        return Err(io(last)(short));
    }
    Ok(got)
}

fn absent(process: usize, address: &str, limit: Duration) -> ConnectError {
    ConnectError::Absent {
        process,
        address: address.to_string(),
        seconds: limit.as_secs(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addresses(n: usize) -> Vec<String> {
        let ls: Vec<TcpListener> = (0..n)
            .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        ls.iter()
            .map(|l| l.local_addr().unwrap().to_string())
            .collect()
    }

    const ID: Identity = Identity {
        run: 1,
        program: 2,
        threads: 1,
    };

    /// Connects every process of `ids` (one thread each) and returns what
    /// each got.
    fn run(ids: Vec<Identity>) -> Vec<Result<Vec<Option<TcpStream>>, ConnectError>> {
        let a = addresses(ids.len());
        let handles: Vec<_> = (ids.into_iter().enumerate())
            .map(|(k, id)| {
                let a = a.clone();
                std::thread::spawn(move || connect(&a, k, id, Duration::from_secs(10)))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }

    #[test]
    fn processes_of_one_run_connect_every_pair() {
        for r in run(vec![ID; 3]) {
            let sockets = r.unwrap();
            assert_eq!(sockets.iter().filter(|s| s.is_some()).count(), 2);
        }
    }

    #[test]
    fn another_run_program_or_thread_count_ends_both_sides() {
        let others = [
            (Identity { run: 9, ..ID }, "another run"),
            (Identity { program: 9, ..ID }, "another program"),
            (Identity { threads: 2, ..ID }, "another number of threads"),
        ];
        for (other, what) in others {
            for r in run(vec![ID, other]) {
                let e = r.expect_err(what).to_string();
                assert!(e.contains(what), "{e}");
            }
        }
    }

    #[test]
    fn a_stranger_is_dropped_and_the_wait_goes_on() {
        let a = addresses(2);
        let a0 = a.clone();
        let p0 = std::thread::spawn(move || connect(&a0, 0, ID, Duration::from_secs(10)));
        // Something that is not rigor connects and says something else.
        let stranger = loop {
            if let Ok(s) = TcpStream::connect(&a[0]) {
                break s;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (&stranger).write_all(&[b'.'; 64]).unwrap();
        let p1 = connect(&a, 1, ID, Duration::from_secs(10));
        assert!(p1.is_ok());
        assert!(p0.join().unwrap().is_ok());
    }

    #[test]
    fn the_last_process_hands_its_bytes_to_every_other() {
        let a = addresses(3);
        let handles: Vec<_> = (0..3)
            .map(|k| {
                let a = a.clone();
                std::thread::spawn(move || {
                    let mut sockets = connect(&a, k, ID, Duration::from_secs(10)).unwrap();
                    let mine = if k == 2 {
                        vec![7u8; 100_000]
                    } else {
                        Vec::new()
                    };
                    let until = Instant::now() + Duration::from_secs(10);
                    hand_out(&mut sockets, k, &mine, until).unwrap()
                })
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), vec![7u8; 100_000]);
        }
    }

    #[test]
    fn a_hand_out_that_never_comes_ends_the_wait_at_the_deadline() {
        let a = addresses(2);
        let a1 = a.clone();
        // The last process connects and says nothing more.
        let last = std::thread::spawn(move || {
            let sockets = connect(&a1, 1, ID, Duration::from_secs(10)).unwrap();
            std::thread::sleep(Duration::from_secs(2));
            drop(sockets);
        });
        let mut sockets = connect(&a, 0, ID, Duration::from_secs(10)).unwrap();
        let until = Instant::now() + Duration::from_millis(300);
        assert!(hand_out(&mut sockets, 0, &[], until).is_err());
        last.join().unwrap();
    }

    #[test]
    fn an_absent_process_ends_the_wait_at_the_limit() {
        let a = addresses(2);
        let e = connect(&a, 0, ID, Duration::from_millis(300)).unwrap_err();
        assert!(matches!(e, ConnectError::Absent { process: 1, .. }), "{e}");
    }
}
