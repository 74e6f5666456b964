//! How a predicate's sources report forms of the truth (SPEC §3 refine):
//! a report of a less specific form of the value that held ("Sudkamp" for
//! "Sudkamp University") and of a more specific one ("Hutton; Hutton" for
//! "Hutton"), each against a report of the value itself. The filter weighs a
//! report of a less specific form as `δ·q + (1 − δ)·miss` for the more
//! specific value, and a report of a more specific form as `max(ε·q, miss)`
//! for the less specific value; calibration learns `δ` and `ε` per predicate
//! from the consensus the smoother finds, which treats every form as a value
//! of its own.

/// Which of a slot's values are more specific forms of others.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotForms {
    /// Index of the predicate among those whose forms are estimated.
    pub group: usize,
    /// Per value, the values it is a more specific form of.
    pub refines: Vec<Vec<usize>>,
    /// Per value, the values that are more specific forms of it.
    pub refined_by: Vec<Vec<usize>>,
}

impl SlotForms {
    /// From each value's more specific forms (`strategy::Values::refined_by`);
    /// `None` when no value has one. `group` is asked only then.
    pub fn of(refined_by: Vec<Vec<usize>>, group: impl FnOnce() -> usize) -> Option<Self> {
        if refined_by.iter().all(Vec::is_empty) {
            return None;
        }
        Some(SlotForms { group: group(), refines: inverse(&refined_by), refined_by })
    }

    /// How a report of `value` stood to the value that held, given the
    /// probability `held[i]` of each value. A value with several forms
    /// shares its probability among them: the filter's likelihoods are per form.
    pub fn reading(&self, value: usize, held: &[f64]) -> FormReading {
        FormReading {
            said_less: self.refined_by[value].iter().map(|s| held[*s] / self.refines[*s].len() as f64).sum(),
            said_more: self.refines[value].iter().map(|g| held[*g] / self.refined_by[*g].len() as f64).sum(),
            said_exactly_of_specific: if self.refines[value].is_empty() { 0.0 } else { held[value] },
            said_exactly_of_general: if self.refined_by[value].is_empty() { 0.0 } else { held[value] },
        }
    }
}

/// The relation the other way round: per value, the values it is a more
/// specific form of, from the values that are more specific forms of each.
pub fn inverse(refined_by: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut refines = vec![Vec::new(); refined_by.len()];
    for (general, specifics) in refined_by.iter().enumerate() {
        for s in specifics {
            refines[*s].push(general);
        }
    }
    refines
}

/// One report's standing to the value that held, as probabilities.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FormReading {
    /// It gave a less specific form of the value that held.
    pub said_less: f64,
    /// It gave a more specific form of the value that held.
    pub said_more: f64,
    /// It gave the value that held, a value with a less specific form in the slot.
    pub said_exactly_of_specific: f64,
    /// It gave the value that held, a value with a more specific form in the slot.
    pub said_exactly_of_general: f64,
}

impl FormReading {
    pub fn add(&mut self, other: &FormReading, weight: f64) {
        self.said_less += weight * other.said_less;
        self.said_more += weight * other.said_more;
        self.said_exactly_of_specific += weight * other.said_exactly_of_specific;
        self.said_exactly_of_general += weight * other.said_exactly_of_general;
    }
}

/// A predicate's estimated `δ` and `ε`, with the evidence behind them.
#[derive(Debug, Clone, PartialEq)]
pub struct FormsFit {
    /// `δ`: how much a report of a less specific form supports the more specific value.
    pub refined_support: f64,
    /// `ε`: how likely a report of a more specific form is when the less specific value holds, relative to a right report.
    pub embellished: f64,
    /// The weighted reports behind the estimates.
    pub counts: FormReading,
}

impl FormsFit {
    /// Ratios of the counts, each with `m` pseudo-reports at the uncalibrated
    /// filter's value (`δ₀`, and `ε₀ = 0`: a plain miss), so a predicate
    /// seen little stays where the filter stands without calibration.
    pub fn of(counts: FormReading, m: f64, uncalibrated_support: f64) -> Self {
        FormsFit {
            refined_support: ((counts.said_less + m * uncalibrated_support) / (counts.said_exactly_of_specific + m)).clamp(0.0, 1.0),
            embellished: (counts.said_more / (counts.said_exactly_of_general + m)).clamp(0.0, 1.0),
            counts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_without_more_specific_forms_has_none() {
        assert_eq!(SlotForms::of(vec![Vec::new(), Vec::new()], || unreachable!("no group without forms")), None);
    }

    #[test]
    fn a_report_is_read_against_the_value_that_held() {
        // Values: 0 "hutton", 1 "hutton; hutton" (a more specific form of 0), 2 "smith".
        let forms = SlotForms::of(vec![vec![1], vec![], vec![]], || 0).unwrap();
        let held = [0.9, 0.1, 0.0];
        let general = forms.reading(0, &held);
        assert_eq!((general.said_less, general.said_more, general.said_exactly_of_general), (0.1, 0.0, 0.9));
        let specific = forms.reading(1, &held);
        assert_eq!((specific.said_less, specific.said_more, specific.said_exactly_of_specific), (0.0, 0.9, 0.1));
        assert_eq!(forms.reading(2, &held), FormReading::default());
    }

    #[test]
    fn the_estimates_are_ratios_drawn_toward_the_uncalibrated_filter() {
        let counts = FormReading { said_less: 40.0, said_more: 30.0, said_exactly_of_specific: 80.0, said_exactly_of_general: 100.0 };
        let fit = FormsFit::of(counts, 20.0, 0.5);
        assert!((fit.refined_support - 50.0 / 100.0).abs() < 1e-12);
        assert!((fit.embellished - 30.0 / 120.0).abs() < 1e-12);
        let unseen = FormsFit::of(FormReading::default(), 20.0, 0.5);
        assert_eq!((unseen.refined_support, unseen.embellished), (0.5, 0.0));
    }
}
