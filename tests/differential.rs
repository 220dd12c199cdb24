//! Differential tests of every reading of the step against the program as
//! the compilers build it: every C program under `../shared/rers` and
//! `problems/` with gcc, every Java program with javac (skipped, with a
//! message, where javac is missing).
//!
//! States are drawn around reachable ones and from each variable's own
//! constants (the values the program text compares it with and assigns
//! to it, read from the text, not through rigor), so that deep rules
//! fire and not only reachable states are stepped. Every input is run
//! on each. The native step (`differential/native.rs`) is the oracle:
//! - the engine's step must end the same way (label, output, invalid,
//!   blocked) in the same state;
//! - the second reading's step (`crosscheck`), from the same
//!   state with every value known, must end at the same label or in the
//!   same state;
//! - the interval step from the state as points must have a run with the
//!   same outcome whose state holds the native successor;
//! - the box step (`smt::box_paths`) from the state as a box of points
//!   must have a path with the same end that allows the native successor.
//!
//! Globals the engine keeps out of its states are set too: those it
//! deems written before read (temporaries) to values drawn like the
//! others, so that the claim is tested; those it deems never written to
//! their initial values, which the step must keep. A mismatch fails with
//! the program, the state and the input.

use crate::common;
#[path = "differential/native.rs"]
mod native;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use native::{Cell, Ended, Native};
use rand::{Rng, SeedableRng};
use rigor::absint::interval::Interval;
use rigor::absint::step::AbstractStep;
use rigor::crosscheck::exec::{Ending, Exec, Said};
use rigor::crosscheck::value::{Cond, Val};
use rigor::engine::{Machine, Storage};
use rigor::ir::{GlobalKind, Program, ScalarTy, GLOBAL_ERROR};
use rigor::smt::{box_paths, PathEnd, Span};
use rigor::system::{Outcome, System};

/// States stepped natively and by the engine, at most.
const STATES: usize = 1500;
/// Most state values written for one program (states times cells).
const VALUES: usize = 3_000_000;
/// Cases (state and input) also stepped by the slower readings.
const SLOW_CASES: usize = 400;

/// What the harness does with one cell.
#[derive(Clone, Copy, Debug)]
enum Role {
    /// An engine state slot.
    State(usize),
    /// Kept out of states as written before read: any value.
    Temp,
    /// Never written: its initial value, kept.
    Const(i32),
    /// Named by no statement of rigor's reading (the 2014 `input`, which
    /// the step reads through its parameter): any value, not compared.
    Unused,
}

/// The globals (by id) some statement of `p` names.
fn named_globals(p: &Program) -> HashSet<usize> {
    let re = regex::Regex::new(r"GlobalId\((\d+)\)").expect("valid regex");
    let text = format!("{:?}", p.functions);
    (re.captures_iter(&text))
        .filter_map(|c| c[1].parse().ok())
        .collect()
}

/// One program under test.
struct Subject {
    /// Whether the program is Java (else C).
    java: bool,
    p: Program,
    m: Machine,
    cells: Vec<Cell>,
    names: Vec<String>,
    roles: Vec<Role>,
    /// Values to draw each cell from.
    draws: Vec<Vec<i32>>,
    /// Cells drawn from these values only: pointers (the arrays, by
    /// global, of the length of the one each starts at), booleans and
    /// strings.
    exact: Vec<Option<Vec<i32>>>,
}

/// The harness cell of a global (or element) of type `ty` named `name`.
fn cell(ty: ScalarTy, name: String) -> Cell {
    match ty {
        ScalarTy::Int => Cell::Int(name),
        ScalarTy::Bool => Cell::Bool(name),
        ScalarTy::Str => Cell::Str(name),
    }
}

/// Per name, the constants the text compares it with or assigns to it
/// (`a = 5`, `a == 5`, `5 < a`, `a[i] != -3`).
fn text_constants(src: &str) -> HashMap<String, BTreeSet<i32>> {
    let after = regex::Regex::new(
        r"\b([A-Za-z_]\w*)\s*(?:\[[^\]\n]*\])?\s*(?:==|!=|<=|>=|<|>|=)\s*(-\s*)?(\d{1,10})\b",
    )
    .expect("valid regex");
    let before = regex::Regex::new(r"\b(-\s*)?(\d{1,10})\s*(?:==|!=|<=|>=|<|>)\s*([A-Za-z_]\w*)\b")
        .expect("valid regex");
    let mut out: HashMap<String, BTreeSet<i32>> = HashMap::new();
    let mut add = |name: &str, neg: bool, digits: &str| {
        if let Ok(v) = digits.parse::<i64>() {
            let v = if neg { -v } else { v };
            if let Ok(v) = i32::try_from(v) {
                out.entry(name.to_string()).or_default().insert(v);
            }
        }
    };
    for c in after.captures_iter(src) {
        add(&c[1], c.get(2).is_some(), &c[3]);
    }
    for c in before.captures_iter(src) {
        add(&c[3], c.get(1).is_some(), &c[2]);
    }
    out
}

impl Subject {
    fn new(path: &Path) -> Subject {
        let p = rigor::frontend::load(&path.to_string_lossy()).expect("loads");
        let m = Machine::compile(&p).expect("compiles");
        let src = std::fs::read_to_string(path).expect("reads");
        let consts = text_constants(&src);
        let layout = m.layout();
        let named = named_globals(&p);
        let slot_of: HashMap<&str, usize> = (layout.slot_names.iter())
            .enumerate()
            .map(|(k, n)| (n.as_str(), k))
            .collect();
        let (mut cells, mut names, mut roles, mut draws, mut exact) =
            (vec![], vec![], vec![], vec![], vec![]);
        for (g, global) in p.globals.iter().enumerate() {
            if global.constant {
                continue; // declared const: C would not let the harness set it
            }
            let own = consts.get(&global.name);
            let values = |init: &[i32]| -> Vec<i32> {
                let mut v: BTreeSet<i32> = own.cloned().unwrap_or_default();
                v.extend(init);
                v.into_iter().collect()
            };
            let strings: Vec<i32> = (0..p.strings.len() as i32).collect();
            let draw_of = |ty: ScalarTy, init: &[i32]| match ty {
                ScalarTy::Int => values(init),
                ScalarTy::Bool => vec![0, 1],
                ScalarTy::Str => strings.clone(),
            };
            let mut push = |name: String, cell: Cell, role: Role, draw: Vec<i32>, ptr| {
                names.push(name);
                cells.push(cell);
                roles.push(role);
                draws.push(draw);
                exact.push(ptr);
            };
            let role = |name: &str, init: i32| match (slot_of.get(name), layout.storage[g]) {
                _ if !named.contains(&g) => Role::Unused,
                (Some(&k), _) => Role::State(k),
                (None, Storage::Temp(_)) => Role::Temp,
                _ => Role::Const(init),
            };
            match &global.kind {
                GlobalKind::Scalar { init, ty } => {
                    let r = role(&global.name, *init);
                    let name = global.name.clone();
                    let draw = draw_of(*ty, &[*init]);
                    let exact = (*ty != ScalarTy::Int).then(|| draw.clone());
                    push(name.clone(), cell(*ty, name), r, draw, exact);
                }
                GlobalKind::Pointer { init } => {
                    let len = |a: usize| match &p.globals[a].kind {
                        GlobalKind::Array { init, .. } => Some(init.len()),
                        _ => None,
                    };
                    let same: Vec<i32> = (0..p.globals.len())
                        .filter(|&a| len(a).is_some() && len(a) == len(init.0 as usize))
                        .map(|a| a as i32)
                        .collect();
                    let r = role(&global.name, init.0 as i32);
                    push(
                        global.name.clone(),
                        Cell::Pointer(global.name.clone()),
                        r,
                        vec![init.0 as i32],
                        Some(same),
                    );
                }
                GlobalKind::Array { init, .. } => {
                    if !matches!(layout.storage[g], Storage::Array { base, .. } if base < layout.state_width)
                    {
                        continue; // a constant block: never written
                    }
                    let elem = match &global.kind {
                        GlobalKind::Array { elem, .. } => *elem,
                        _ => ScalarTy::Int,
                    };
                    let draw = draw_of(elem, init);
                    for (k, v) in init.iter().enumerate() {
                        let name = format!("{}[{k}]", global.name);
                        let r = role(&name, *v);
                        let exact = (elem != ScalarTy::Int).then(|| draw.clone());
                        push(name.clone(), cell(elem, name), r, draw.clone(), exact);
                    }
                }
            }
        }
        Subject {
            java: path.extension().is_some_and(|x| x == "java"),
            p,
            m,
            cells,
            names,
            roles,
            draws,
            exact,
        }
    }

    /// The arrays pointers may name, with their numbers (global ids).
    fn arrays(&self) -> Vec<(i32, String)> {
        (self.p.globals.iter().enumerate())
            .filter(|(_, g)| matches!(g.kind, GlobalKind::Array { .. }))
            .map(|(a, g)| (a as i32, g.name.clone()))
            .collect()
    }

    /// The engine state within cell values.
    fn engine_state(&self, values: &[i32]) -> Vec<i32> {
        let mut s = vec![0; self.m.state_width()];
        for (r, v) in self.roles.iter().zip(values) {
            if let Role::State(k) = r {
                s[*k] = *v;
            }
        }
        s
    }

    /// Cell values around engine state `s`: state slots as in `s`,
    /// temporaries drawn, constants at their initial values.
    fn cells_of(&self, s: &[i32], rng: &mut impl Rng) -> Vec<i32> {
        (self.roles.iter().enumerate())
            .map(|(c, r)| match r {
                Role::State(k) => s[*k],
                Role::Temp | Role::Unused => self.draw(c, rng),
                Role::Const(v) => *v,
            })
            .collect()
    }

    /// A value for cell `c`: mostly one of its constants, sometimes one
    /// next to them or anywhere between.
    fn draw(&self, c: usize, rng: &mut impl Rng) -> i32 {
        if let Some(Some(only)) = self.exact.get(c) {
            return only[rng.random_range(0..only.len())];
        }
        let d = &self.draws[c];
        let pick = d[rng.random_range(0..d.len())];
        match rng.random_range(0..10) {
            0 => pick.wrapping_add(rng.random_range(-2..=2)),
            1 => rng.random_range(d[0].saturating_sub(5)..=d[d.len() - 1].saturating_add(5)),
            _ => pick,
        }
    }
}

/// Per input: the engine's outcome and successor, `None` where it faults.
type EngineRow = Vec<Option<(Outcome, Vec<i32>)>>;

/// What the slower readings were asked and answered.
#[derive(Default, Debug)]
struct Tally {
    cases: usize,
    fired: usize,
    errors: usize,
    second: usize,
    interval: usize,
    interval_gave_up: usize,
    boxes: usize,
    boxes_gave_up: usize,
}

/// Whether the engine's outcome `o` and the native ending agree.
fn agrees(s: &Subject, o: Outcome, e: &Ended) -> bool {
    let p = &s.p;
    let printed = |k: u16| {
        let sym = &p.outputs[k as usize];
        if s.java {
            sym.name.clone()
        } else {
            sym.value.to_string()
        }
    };
    match (o, e) {
        (Outcome::Error(n), Ended::Error(l)) => n == *l || (n == GLOBAL_ERROR && *l == u32::MAX),
        (Outcome::Blocked, Ended::Blocked) => true,
        (
            Outcome::Output(k),
            Ended::Went {
                outputs, invalid, ..
            },
        ) => !invalid && outputs.as_slice() == [printed(k)],
        (
            Outcome::Silent,
            Ended::Went {
                outputs, invalid, ..
            },
        ) => !invalid && outputs.is_empty(),
        (
            Outcome::Invalid,
            Ended::Went {
                outputs, invalid, ..
            },
        ) => *invalid && outputs.is_empty(),
        _ => false,
    }
}

/// Checks one program against gcc's build of `native_text` (its own
/// text, but for planted differences); returns its tally.
fn check_program(path: &Path, native_text: &Path, seed: u64) -> Tally {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let s = Subject::new(path);
    let shown = path.display();
    let inputs: Vec<i32> = s.p.inputs.iter().map(|x| x.value).collect();
    let native = if s.java {
        let names: Vec<String> = s.p.inputs.iter().map(|x| x.name.clone()).collect();
        Native::build_java(native_text, &s.cells, &s.arrays(), &s.p.strings, &names)
    } else {
        Native::build(native_text, &s.cells, &s.arrays(), &inputs)
    };
    let base = common::reachable_states(&s.m, 300);
    let n_states = STATES.min(VALUES / s.cells.len().max(1)).max(50);
    let mut scratch = s.m.scratch();
    let mut next = vec![0; s.m.state_width()];
    let mut states = Vec::with_capacity(n_states);
    let mut engine: Vec<EngineRow> = Vec::with_capacity(n_states);
    for n in 0..n_states {
        let mut values = s.cells_of(&base[rng.random_range(0..base.len())], &mut rng);
        // A share redrawn: none, a few cells, or all of them.
        let share = [0.0, 0.03, 0.15, 0.5, 1.0][n % 5];
        for (c, v) in values.iter_mut().enumerate() {
            if matches!(s.roles[c], Role::State(_)) && rng.random_bool(share) {
                *v = s.draw(c, &mut rng);
            }
        }
        let pre = s.engine_state(&values);
        let row: EngineRow = (0..inputs.len())
            .map(|i| {
                let o = s.m.step(&mut scratch, &pre, i, &mut next).ok()?;
                Some((o, next.clone()))
            })
            .collect();
        let skip = row.iter().map(Option::is_none).collect();
        states.push((values, skip));
        engine.push(row);
    }
    let ended = native.run(&states, Duration::from_secs(600));
    let mut tally = Tally::default();
    let mut slow = Vec::new();
    for (n, ((values, _), row)) in states.iter().zip(&engine).enumerate() {
        for (i, (e, nat)) in row.iter().zip(&ended[n]).enumerate() {
            let (Some((o, next)), Some(nat)) = (e, nat) else {
                continue;
            };
            tally.cases += 1;
            let here = || {
                format!(
                    "{shown}: input {} from state {}",
                    inputs[i],
                    (s.names.iter().zip(values))
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                )
            };
            assert!(
                agrees(&s, *o, nat),
                "{}: the engine ends {o:?}, gcc's program {nat:?}",
                here()
            );
            tally.errors += usize::from(matches!(o, Outcome::Error(_)));
            tally.fired += usize::from(matches!(o, Outcome::Output(_) | Outcome::Error(_)));
            if let Ended::Went { post, .. } = nat {
                for (c, r) in s.roles.iter().enumerate() {
                    let want = match r {
                        Role::State(k) => next[*k],
                        Role::Const(v) => *v,
                        Role::Temp | Role::Unused => continue,
                    };
                    assert_eq!(
                        want,
                        post[c],
                        "{}: after the step the engine has {}={want}, gcc's program {}",
                        here(),
                        s.names[c],
                        post[c]
                    );
                }
            }
            slow.push((n, i));
        }
    }
    // The slower readings on an even spread of the cases.
    let stride = (slow.len() / SLOW_CASES).max(1);
    let reading = SecondReading::of(&s, path);
    let abs = AbstractStep::new(&s.p, &s.m);
    for &(n, i) in slow.iter().step_by(stride) {
        let values = &states[n].0;
        let nat = ended[n][i].as_ref().expect("run");
        let (o, next) = engine[n][i].as_ref().expect("run");
        let here = format!("{shown}: input {} from state #{n}", inputs[i]);
        check_second(&s, &reading, values, inputs[i], nat, &here);
        tally.second += 1;
        // The interval step.
        let point: Vec<Interval> = s
            .engine_state(values)
            .into_iter()
            .map(Interval::point)
            .collect();
        match abs.step(&point, i) {
            Ok(runs) => {
                tally.interval += 1;
                assert!(
                    *o == Outcome::Blocked
                        || runs.iter().any(|(ro, post)| {
                            ro == o
                                && (matches!(o, Outcome::Error(_))
                                    || post.iter().zip(next).all(|(x, v)| x.contains(*v as i64)))
                        }),
                    "{here}: no run of the interval step ends {o:?} in {next:?}: {runs:?}"
                );
            }
            Err(_) => tally.interval_gave_up += 1,
        }
        check_box(&s, values, i, *o, nat, &here, &mut tally);
    }
    tally
}

/// The second reading of a program, with what every case needs of it.
struct SecondReading {
    program: rigor::crosscheck::syntax::Program,
    layout: rigor::crosscheck::layout::Layout,
    /// The cell of each name the second reading's layout may use.
    cell_of: HashMap<String, usize>,
    /// The globals every step writes before reading them.
    temps: HashSet<String>,
}

impl SecondReading {
    fn of(s: &Subject, path: &Path) -> SecondReading {
        // The second reading numbers strings as rigor's certificates say.
        let strings: Vec<(i64, String)> = (s.p.strings.iter().enumerate())
            .map(|(k, t)| (k as i64, t.clone()))
            .collect();
        let program = rigor::crosscheck::read_program(&path.to_string_lossy(), &strings)
            .expect("second reading");
        let layout = rigor::crosscheck::layout::Layout::of(&program).expect("layout");
        let cell_of = (s.names.iter().enumerate())
            .map(|(c, n)| (n.clone(), c))
            .collect();
        let temps = program.written_first().into_iter().collect();
        SecondReading {
            program,
            layout,
            cell_of,
            temps,
        }
    }
}

/// The second reading's step from `values` against the native ending.
fn check_second(
    s: &Subject,
    reading: &SecondReading,
    values: &[i32],
    input: i32,
    nat: &Ended,
    here: &str,
) {
    let SecondReading {
        program: second,
        layout,
        cell_of,
        temps,
    } = reading;
    let array_name = |g: i32| s.p.globals[g as usize].name.clone();
    let to_second = |c: usize, v: i32| match s.cells[c] {
        Cell::Pointer(_) => layout.array_number(&array_name(v)).map_or(-1, |a| a as i32),
        Cell::Int(_) | Cell::Bool(_) | Cell::Str(_) => v,
    };
    let pre: Vec<Val> = (layout.names.iter().enumerate())
        .map(|(k, n)| {
            Val::Known(match cell_of.get(n.as_str()) {
                Some(&c) => to_second(c, values[c]),
                None => layout.initial[k],
            })
        })
        .collect();
    let step = Exec::run(second, layout, pre, Val::Known(input)).expect("the second reading steps");
    let live: Vec<&Ending> = (step.ends.iter())
        .filter(|e| !matches!(e.when, Cond::Known(false)))
        .map(|e| &e.ending)
        .collect();
    let ok = match nat {
        Ended::Error(l) => matches!(live.as_slice(), [Ending::Error(n)] if n == l),
        Ended::Blocked => live.is_empty(),
        Ended::Threw(_) => matches!(live.as_slice(), [Ending::Fault(_)]),
        Ended::Went {
            post,
            outputs,
            invalid,
        } => match live.as_slice() {
            [Ending::GoesOn(vals, said)] => {
                said_agrees(s, second, said, outputs, *invalid)
                    && (layout.names.iter().zip(vals)).all(|(n, v)| {
                        let Some(&c) = cell_of.get(n.as_str()) else {
                            return true;
                        };
                        temps.contains(n)
                            || matches!(s.roles[c], Role::Temp | Role::Unused)
                            || matches!(v, Val::Known(x) if *x == to_second(c, post[c]))
                    })
            }
            _ => false,
        },
        _ => false,
    };
    assert!(
        ok,
        "{here}: the compiled program ends {nat:?}, the second reading {live:?}"
    );
}

/// Whether what the second reading's step said (its output, nothing, or
/// an invalid input) is what the compiled program printed.
fn said_agrees(
    s: &Subject,
    second: &rigor::crosscheck::syntax::Program,
    said: &Said,
    outputs: &[String],
    invalid: bool,
) -> bool {
    let (Val::Known(kind), Val::Known(value)) = (&said.kind, &said.value) else {
        return false;
    };
    match (*kind, outputs) {
        (Said::INVALID, []) => invalid,
        (Said::SILENT, []) => !invalid,
        (Said::OUTPUT, [printed]) if !invalid => {
            if s.java {
                usize::try_from(*value).is_ok_and(|k| second.strings.get(k) == Some(printed))
            } else {
                printed.trim() == value.to_string()
            }
        }
        _ => false,
    }
}

/// The box step from `values` as points against the native ending.
fn check_box(
    s: &Subject,
    values: &[i32],
    i: usize,
    o: Outcome,
    nat: &Ended,
    here: &str,
    tally: &mut Tally,
) {
    let end = match o {
        Outcome::Output(k) => PathEnd::Output(Some(s.p.outputs[k as usize].value)),
        Outcome::Silent => PathEnd::Output(None),
        Outcome::Invalid => PathEnd::Invalid,
        Outcome::Error(l) => PathEnd::Error(l),
        Outcome::Blocked => return,
    };
    let mut before: Vec<Vec<i32>> = (s.p.globals.iter())
        .map(|g| match &g.kind {
            GlobalKind::Scalar { init, .. } => vec![*init],
            GlobalKind::Pointer { init } => vec![init.0 as i32],
            GlobalKind::Array { init, .. } => init.clone(),
        })
        .collect();
    let at = |name: &str| -> (usize, usize) {
        let (base, k) = match name.split_once('[') {
            Some((b, rest)) => (b, rest.trim_end_matches(']').parse().expect("index")),
            None => (name, 0),
        };
        let g = (s.p.globals.iter().position(|g| g.name == base)).expect("a global");
        (g, k)
    };
    for (c, v) in values.iter().enumerate() {
        let (g, k) = at(&s.names[c]);
        before[g][k] = *v;
    }
    let spans: Vec<Vec<Option<Span>>> = (before.iter())
        .map(|g| g.iter().map(|&v| Some(Span { lo: v, hi: v })).collect())
        .collect();
    let Ok(paths) = box_paths(&s.p, &spans, &[], s.p.inputs[i].value) else {
        tally.boxes_gave_up += 1;
        return;
    };
    tally.boxes += 1;
    let Ended::Went { post, .. } = nat else {
        assert!(
            paths.iter().any(|p| p.end == end),
            "{here}: no path of the box step ends {end:?}: {paths:?}"
        );
        return;
    };
    let on_a_path = paths.iter().any(|path| {
        path.end == end
            && (s.roles.iter().enumerate()).all(|(c, r)| {
                if matches!(r, Role::Temp | Role::Unused) {
                    return true;
                }
                let (g, k) = at(&s.names[c]);
                let held = &path.post[g][k];
                let base = held.base.map_or(0, |(g, k)| before[g][k] as i128);
                let apart = post[c] as i128 - base - held.rest as i128;
                let congruent = match held.modulus {
                    0 => apart == 0,
                    m => apart.rem_euclid(m as i128) == 0,
                };
                held.span.contains(post[c] as i64) && congruent
            })
    });
    assert!(
        on_a_path,
        "{here}: gcc's program ends {end:?} in {post:?}, on none of the box step's paths"
    );
}

/// The C and Java programs under `dir` (a folder of the RERS tree), sorted.
fn c_programs(dir: &str) -> Vec<PathBuf> {
    match common::rers_dir() {
        Some(rers) => c_files(&rers.join(dir)),
        None => Vec::new(),
    }
}

/// The C and Java files under `dir` (not the `Errors` classes), sorted.
fn c_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "c" || x == "java")
                && p.file_name().is_some_and(|n| n != "Errors.java")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Checks every C program under `dir` and that the cases reach rules.
fn check_year(dir: &str) {
    let programs = c_programs(dir);
    if programs.is_empty() {
        eprintln!("no C programs under {dir}: not run");
        return;
    }
    check_all(&programs);
}

/// Whether `javac` runs here (the Java programs are skipped, with a
/// message, where it does not).
fn have_javac() -> bool {
    std::process::Command::new("javac")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Checks `programs` and that the cases reach rules.
fn check_all(programs: &[PathBuf]) {
    let javac = have_javac();
    for (k, path) in programs.iter().enumerate() {
        if !javac && path.extension().is_some_and(|x| x == "java") {
            eprintln!("{}: no javac here, not run", path.display());
            continue;
        }
        let t = check_program(path, path, 11 + k as u64);
        eprintln!("{}: {t:?}", path.display());
        assert!(
            t.fired >= 50 && t.fired * 200 >= t.cases,
            "{}: too few cases fire a rule ({} of {})",
            path.display(),
            t.fired,
            t.cases
        );
        assert!(
            t.interval + t.boxes > 0,
            "{}: neither the interval nor the box step answered",
            path.display()
        );
    }
}

#[test]
fn rers_2012_steps_agree_with_gcc() {
    check_year("2012");
}

#[test]
fn rers_2014_steps_agree_with_gcc() {
    check_year("2014");
}

#[test]
fn rers_2017_and_2018_steps_agree_with_gcc() {
    check_year("2017");
    check_year("2018");
}

#[test]
fn rers_2019_reachability_steps_agree_with_the_compilers() {
    check_year("2019/seq-reach");
}

#[test]
fn rers_2019_ltl_and_training_steps_agree_with_the_compilers() {
    check_year("2019/seq-ltl");
    check_year("2019/training-seq-ltl");
    check_year("2019/training-seq-reach");
}

#[test]
fn rers_2019_industrial_steps_agree_with_javac() {
    check_year("2019/industrial-reach");
}

#[test]
fn bundled_steps_agree_with_the_compilers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let programs = c_files(&root);
    assert!(programs.len() > 10, "the bundled C programs are found");
    check_all(&programs);
}

/// `check_program` on the bundled plain problem, against gcc's build of
/// its text with `from` replaced by `to`: the message it fails with.
fn planted(from: &str, to: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("problems/reach-plain/Problem901.c");
    let text = std::fs::read_to_string(&path).expect("reads");
    assert!(text.contains(from), "the text to plant into is there");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let planted = dir.path().join("Problem901.c");
    std::fs::write(&planted, text.replacen(from, to, 1)).expect("writes");
    let run = std::panic::catch_unwind(|| check_program(&path, &planted, 1));
    let Err(e) = run else {
        panic!("a planted difference ({from} -> {to}) went unnoticed")
    };
    (e.downcast_ref::<String>().cloned()).unwrap_or_default()
}

#[test]
fn planted_differences_are_found() {
    // A rule's assignment, its output, and a guard of an error.
    let msg = planted("a = 3;", "a = 4;");
    assert!(msg.contains("gcc's program"), "{msg}");
    let msg = planted("printf(\"%d\\n\", 21)", "printf(\"%d\\n\", 24)");
    assert!(msg.contains("outputs: [\"24\"]"), "{msg}");
    let msg = planted("if((a == 1 && b == 1))", "if((a == 1 && b == 0))");
    assert!(msg.contains("gcc's program"), "{msg}");
}
