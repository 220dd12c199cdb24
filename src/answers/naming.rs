//! Problem names, the one place they are made: the name of a program's
//! problem from its file name (`Problem11.c` → `11`, `m24_Reach.java` →
//! `m24`), the problem an answer file is about from its path, and the
//! file-name stem of a problem's answer files (`Problem11`, `m24`).

use std::path::Path;

/// The RERS problem number in a file name: `Problem11.c` → `11`,
/// `Problem1402_opt.c` → `1402`, `m24_Reach.java` → `m24`.
pub fn problem_name(path: &str) -> String {
    let stem = Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    if let Some(rest) = stem.strip_prefix("Problem") {
        if let Some(digits) = leading_digits(rest) {
            return digits;
        }
    }
    stem.split('_').next().unwrap_or(&stem).to_string()
}

/// The problem a path names by `ProblemN` somewhere in its file name, else
/// in the nearest parent folder's name that has one: the problem of an
/// answer file that does not say it (`bbc/Problem11-LearnLib.csv`,
/// `Problem11/solutions.csv`).
pub fn problem_in_path(path: &str) -> Option<String> {
    let p = Path::new(path);
    let names = p
        .file_name()
        .into_iter()
        .chain(p.ancestors().skip(1).filter_map(|a| a.file_name()));
    for name in names {
        let name = name.to_string_lossy();
        if let Some(i) = name.find("Problem") {
            if let Some(digits) = leading_digits(&name[i + "Problem".len()..]) {
                return Some(digits);
            }
        }
    }
    None
}

/// File-name stem of a problem's answers: `Problem11` for problem `11`,
/// the name itself otherwise (`m135`).
pub fn answer_stem(problem: &str) -> String {
    if !problem.is_empty() && problem.chars().all(|c| c.is_ascii_digit()) {
        format!("Problem{problem}")
    } else {
        problem.to_string()
    }
}

/// The digits `s` starts with, if it starts with one.
fn leading_digits(s: &str) -> Option<String> {
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    (!digits.is_empty()).then_some(digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_names() {
        assert_eq!(problem_name("a/b/Problem11.c"), "11");
        assert_eq!(problem_name("Problem1402_opt.c"), "1402");
        assert_eq!(problem_name("m24_Reach.java"), "m24");
        assert_eq!(problem_name("ProblemX.c"), "ProblemX");
    }

    #[test]
    fn problems_in_paths() {
        assert_eq!(
            problem_in_path("bbc/Problem11-LearnLib.csv").as_deref(),
            Some("11")
        );
        assert_eq!(
            problem_in_path("x/Problem7/answers.csv").as_deref(),
            Some("7")
        );
        assert_eq!(problem_in_path("x/answers.csv"), None);
    }

    #[test]
    fn stems_round_trip_through_the_name() {
        for name in ["11", "m135"] {
            assert_eq!(
                answer_stem(name),
                answer_stem(&problem_name(&answer_stem(name)))
            );
            assert_eq!(problem_name(&format!("{}.c", answer_stem(name))), name);
        }
        assert_eq!(answer_stem(""), "");
    }
}
