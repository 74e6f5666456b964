//! Leaps along a steady creep of the EM loop (Aitken's extrapolation, in
//! the spirit of SQUAREM, Varadhan & Roland 2008).
//!
//! EM creeps toward its fixed point: each round's step is a nearly fixed
//! share `c` of the one before. On the bench workload a half-life crept from
//! 300 to 700 days, each round closing 13% of the way left (`c ≈ 0.87`), 37
//! rounds from one start and 52 from the other. Once three rounds in a row
//! went one way at one rate, the loop leaps `c/(1 − c)` steps ahead, which
//! on a steady creep is the fixed point. A leap is bounded (`MAX_MOVE` on any
//! estimate) because a loop that is still settling in can look steady for
//! three rounds: unbounded, one such leap on a test world sent a half-life
//! from 30 days to 0.06 and the loop needed 34 rounds instead of 11. The
//! loop still ends only after a plain round that moved little, so what it
//! converges to is a fixed point of EM as before; only the way is shorter.

/// The longest leap, in plain steps. A creep closing 13% a round (`c = 0.87`) asks for 6.7.
const MAX_LEAP: f64 = 16.0;
/// Two steps in nearly one direction (cosine) make a steady creep...
const STEADY: f64 = 0.9;
/// ...when the second is at least this share `c` of the first: a faster loop ends soon anyway.
const SLOW: f64 = 0.5;
/// The furthest a leap moves any coordinate: a reliability or repeat
/// weight by 0.3, a half-life by a factor `e^0.3` ≈ 1.35 (a long creep takes
/// several leaps).
const MAX_MOVE: f64 = 0.3;
/// Two rates in a row within this share of each other: the creep is steady, not settling in.
const AGREE: f64 = 0.1;

/// The estimates of one round as one vector (`estimate::point`: log
/// half-lives, reliabilities, repeat weights).
pub type Point = Vec<f64>;

#[derive(Debug, Default)]
pub struct Extrapolation {
    /// The last rounds' estimates, each round's output the next one's input (at most four).
    cycle: Vec<Point>,
    #[cfg(test)]
    never: bool,
}

impl Extrapolation {
    /// One that never leaps: plain EM, to compare against.
    #[cfg(test)]
    pub fn never() -> Self {
        Extrapolation { cycle: Vec::new(), never: true }
    }

    pub fn reset(&mut self) {
        self.cycle.clear();
    }

    /// A round took `input` to `output`. The point the next round starts
    /// from instead of `output`, once three rounds in a row crept steadily.
    pub fn after_round(&mut self, input: Point, output: &[f64]) -> Option<Point> {
        #[cfg(test)]
        if self.never {
            return None;
        }
        if self.cycle.last() != Some(&input) {
            self.cycle = vec![input];
        }
        self.cycle.push(output.to_vec());
        if self.cycle.len() < 4 {
            return None;
        }
        let steps: Vec<Vec<f64>> = self.cycle.windows(2).map(|w| w[1].iter().zip(&w[0]).map(|(a, b)| a - b).collect()).collect();
        self.cycle.remove(0);
        let (first, last) = (steady(&steps[0], &steps[1])?, steady(&steps[1], &steps[2])?);
        if (last - first).abs() > AGREE * last || !(SLOW..1.0).contains(&last) {
            return None;
        }
        // Within reach: no coordinate leaps further than `MAX_MOVE`.
        let widest = steps[2].iter().fold(0.0f64, |w, r| w.max(r.abs()));
        let leap = (last / (1.0 - last)).min(MAX_LEAP).min(MAX_MOVE / widest);
        self.cycle.clear();
        Some(output.iter().zip(&steps[2]).map(|(a, r)| a + leap * r).collect())
    }
}

/// The rate `‖b‖/‖a‖` of two steps in nearly one direction; `None` when they turn.
fn steady(a: &[f64], b: &[f64]) -> Option<f64> {
    let (na, nb) = (norm(a), norm(b));
    if na == 0.0 || nb == 0.0 || !na.is_finite() || !nb.is_finite() {
        return None;
    }
    let cosine = a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>() / (na * nb);
    (cosine >= STEADY).then_some(nb / na)
}

fn norm(x: &[f64]) -> f64 {
    x.iter().map(|a| a * a).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A map creeping toward `target` by 13% of the way per step.
    fn creep(x: &[f64], target: f64) -> Vec<f64> {
        x.iter().map(|a| a + 0.13 * (target - a)).collect()
    }

    /// Runs `rounds` rounds of `map` from `x` through `s`, as the estimator does.
    fn rounds(s: &mut Extrapolation, mut x: Vec<f64>, rounds: usize, map: impl Fn(&[f64]) -> Vec<f64>) -> (Vec<f64>, usize) {
        let mut leaps = 0;
        for _ in 0..rounds {
            let out = map(&x);
            x = match s.after_round(x, &out) {
                Some(leap) => {
                    leaps += 1;
                    leap
                }
                None => out,
            };
        }
        (x, leaps)
    }

    #[test]
    fn three_steady_rounds_then_a_leap_to_the_fixed_point_within_reach() {
        let mut s = Extrapolation::default();
        let (x, leaps) = rounds(&mut s, vec![9.8, 9.9], 2, |x| creep(x, 10.0));
        assert_eq!(leaps, 0, "two rounds show no rate yet");
        let (x, leaps) = rounds(&mut s, x, 1, |x| creep(x, 10.0));
        assert_eq!(leaps, 1);
        assert!(x.iter().all(|a| (a - 10.0).abs() < 1e-9), "{x:?}");
    }

    #[test]
    fn a_leap_out_of_reach_moves_no_estimate_beyond_max_move() {
        let mut s = Extrapolation::default();
        let (before, _) = rounds(&mut s, vec![0.0], 2, |x| creep(x, 10.0));
        let plain = creep(&before, 10.0);
        let leap = s.after_round(before, &plain).expect("a steady creep");
        assert!((leap[0] - plain[0] - MAX_MOVE).abs() < 1e-12, "{leap:?} from {plain:?}");
    }

    #[test]
    fn no_leap_where_the_loop_turns_speeds_up_or_stands_still() {
        // Steps that turn back and forth.
        let mut s = Extrapolation::default();
        let zigzag = |x: &[f64]| vec![x[0] + 0.1, -x[1]];
        assert_eq!(rounds(&mut s, vec![0.0, 1.0], 6, zigzag).1, 0);
        // Steps of 1, 0.9, then 0.6: a rate that falls from 0.9 to 0.67, a loop settling in.
        let mut s = Extrapolation::default();
        let settling = |x: &[f64]| vec![x[0] + if x[0] < 0.5 { 1.0 } else if x[0] < 1.5 { 0.9 } else { 0.6 }];
        assert_eq!(rounds(&mut s, vec![0.0], 3, settling).1, 0);
        let mut s = Extrapolation::default();
        assert_eq!(rounds(&mut s, vec![3.0], 6, |x| x.to_vec()).1, 0, "no step, no leap");
    }
}
