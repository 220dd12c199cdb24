use super::*;
use crate::absint::explore_abstract;
use crate::check::pruning::PruningError;
use std::sync::Mutex;

fn bundled(problem: &str) -> (Program, Machine, AbsGraph) {
    let path = format!("{}/problems/{problem}", env!("CARGO_MANIFEST_DIR"));
    let p = crate::frontend::load(&path).expect("loads");
    let m = Machine::compile(&p).expect("compiles");
    let g = explore_abstract(&p, &m, &Budget::unlimited()).expect("explores");
    (p, m, g)
}

#[test]
fn an_abstraction_stopped_by_a_limit_still_gives_witnesses() {
    // reach-arith has 19 abstract states; stopped at 10, the graph so
    // far reaches label 0 (one step), and its path replays.
    let path = format!(
        "{}/problems/reach-arith/Problem902.c",
        env!("CARGO_MANIFEST_DIR")
    );
    let p = crate::frontend::load(&path).expect("loads");
    let m = Machine::compile(&p).expect("compiles");
    let limits = Budget {
        max_states: Some(10),
        ..Budget::unlimited()
    };
    let judge = |g: &AbsGraph| (g.unreplayed_labels(&m), ());
    let stopped = crate::absint::explore_abstract_best(&p, &m, &limits, 1, judge)
        .expect_err("stopped by the state limit");
    assert!(matches!(
        stopped.why,
        crate::absint::AbstractionError::TooManyStates(_)
    ));
    let g = stopped.partial.expect("the graph so far");
    assert!(g.n_states() < 19);
    let early = early_witnesses(&p, &m, &g, &Budget::unlimited(), None);
    assert!(early.iter().any(|e| e.0 == 0), "{early:?}");
    for (l, path) in &early {
        assert_eq!(replay(&m, path), Ok(Outcome::Error(*l)));
    }
    // A search that stops at its first state, without the abstraction:
    // the label is answered by the witness from the graph so far.
    let opts = search_options(&ReachOptions::default(), m.inputs(), Vec::new());
    let one_state = Budget {
        max_states: Some(1),
        ..Budget::unlimited()
    };
    let r = search_stage(&m, &path, &one_state, &opts, None, &early, false);
    let v = &r.verdicts[0];
    assert_eq!((v.property, v.verdict), (0, Some(true)));
    assert_eq!(v.engine, Some(Evidence::Witness));
    assert!(r.verdicts[1..].iter().all(|v| v.verdict.is_none()));
}

#[test]
fn early_witnesses_replay_and_are_told_at_once() {
    // reach-arith: label 0's abstract path replays (label 2's does not,
    // and no counter guards it: the search finds it); reach-pump: label
    // 1 only by pumping its counter.
    for (problem, reachable) in [
        ("reach-arith/Problem902.c", vec![0]),
        ("reach-pump/Problem910.c", vec![1]),
    ] {
        let (p, m, g) = bundled(problem);
        let told = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&told);
        let on_error: crate::explore::ErrorFound =
            Arc::new(move |l: u32, _: &[usize]| sink.lock().expect("unpoisoned").push(l));
        let early = early_witnesses(&p, &m, &g, &Budget::unlimited(), Some(&on_error));
        let labels: Vec<u32> = early.iter().map(|e| e.0).collect();
        assert_eq!(labels, reachable, "{problem}");
        for (l, path) in &early {
            assert_eq!(replay(&m, path), Ok(Outcome::Error(*l)), "{problem}");
        }
        assert_eq!(*told.lock().expect("unpoisoned"), reachable, "{problem}");
    }
}

#[test]
fn a_spent_budget_pumps_nothing() {
    let (p, m, g) = bundled("reach-pump/Problem910.c");
    let spent = Budget::unlimited().with_timeout(Duration::ZERO);
    assert!(early_witnesses(&p, &m, &g, &spent, None).is_empty());
    // An interrupt stops the pumping too, well before its share of the
    // time is spent.
    let (interrupted, interrupt) = Budget::unlimited().cancellable();
    interrupt.cancel();
    assert!(early_witnesses(&p, &m, &g, &interrupted, None).is_empty());
}

/// reach-arith's program, its path, its certificate, and a pruned search
/// whose states lie in every region.
fn pruned_everywhere() -> (Arc<Program>, String, Certificate, Pruned) {
    let (p, m, g) = bundled("reach-arith/Problem902.c");
    let path = format!(
        "{}/problems/reach-arith/Problem902.c",
        env!("CARGO_MANIFEST_DIR")
    );
    let c = certificate_of(&p, &m, &g);
    let every = Pruned {
        dead: (0..c.regions.len()).collect(),
        outside: 0,
    };
    (Arc::new(p), path, c, every)
}

/// The certificate of a pruned search is decided on a thread of its own:
/// an interrupted run still has it decided within the grace, a reachable
/// label claimed is rejected, and pruned states outside their regions
/// leave no certificate.
#[test]
fn a_pruning_certificate_is_decided_even_after_an_interrupt() {
    let (p, path, c, every) = pruned_everywhere();
    let claimed = c.unreachable.clone();
    assert!(!claimed.is_empty());
    let (interrupted, interrupt) = Budget::unlimited().cancellable();
    interrupt.cancel();
    let note = check_pruning(&p, &path, &c, &claimed, &every, &interrupted).expect("accepted");
    assert_eq!(note, None, "both readings decide");
    // Label 0 is one input deep.
    let reachable = check_pruning(&p, &path, &c, &[0], &every, &Budget::unlimited());
    assert!(
        matches!(reachable, Err(PruningError::Rejected { .. })),
        "{reachable:?}"
    );
    let outside = Pruned {
        outside: 1,
        ..every.clone()
    };
    let outside = check_pruning(&p, &path, &c, &claimed, &outside, &Budget::unlimited());
    assert!(
        matches!(outside, Err(PruningError::Outside { .. })),
        "{outside:?}"
    );
}

/// The second, independent reading checks a pruning certificate too: on a
/// file whose rule differs from the program the first check read (what a
/// front end that misread the file would give), the regions are not
/// closed, and the certificate is rejected although the first check
/// accepts it.
#[test]
fn a_pruning_certificate_gets_the_second_reading() {
    let (p, path, c, every) = pruned_everywhere();
    let text = std::fs::read_to_string(&path).expect("readable");
    let rule = "x = -x;";
    assert!(text.contains(rule), "the rule to change");
    let dir = std::env::temp_dir().join(format!("rigor-pruning-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    let misread = dir.join("Problem902.c");
    std::fs::write(&misread, text.replace(rule, "x = -x * 3;")).expect("written");
    let misread = misread.to_str().expect("utf-8");
    let got = check_pruning(&p, misread, &c, &[1], &every, &Budget::unlimited());
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        matches!(
            &got,
            Err(PruningError::Rejected {
                error: crate::certificate::CheckError::SecondReadingRejects(_),
                ..
            })
        ),
        "{got:?}"
    );
    // On the file the first check read, both readings accept it.
    let accepted = check_pruning(&p, &path, &c, &[1], &every, &Budget::unlimited());
    assert!(accepted.is_ok(), "{accepted:?}");
}
