//! Predicate specs: canonical names, aliases, cardinality, time variance, memory
//! type. A built-in registry covers common predicates; user specs extend or
//! override it. A predicate without a spec is single-valued and time-varying,
//! and its memory type is read from its taxonomy path (SPEC §2).

use std::cell::RefCell;
use std::rc::Rc;

use foldhash::{HashMap, HashMapExt};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum Cardinality {
    Single,
    Multi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum MemoryType {
    Working,
    Episodic,
    Semantic,
    Procedural,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct PredicateSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    pub cardinality: Cardinality,
    pub time_varying: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_type: Option<MemoryType>,
    /// A strategy name (SPEC §5); checked when the engine is built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_life_days: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_type: Option<String>,
    /// Predicates this one hangs on (`work_location` on `works_at`): when the
    /// subject's current value of one of them changes or is retracted, its
    /// current claims of this predicate are flagged with a `dependent` conflict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
}

impl PredicateSpec {
    fn builtin(name: &str, aliases: &[&str], cardinality: Cardinality, time_varying: bool) -> Self {
        PredicateSpec {
            name: name.to_string(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            cardinality,
            time_varying,
            memory_type: None,
            strategy: None,
            half_life_days: None,
            object_type: None,
            depends_on: Vec::new(),
        }
    }

    /// The spec a predicate gets when nobody wrote one.
    pub fn implicit(name: &str) -> Self {
        Self::builtin(name, &[], Cardinality::Single, true)
    }

    pub fn is_multi(&self) -> bool {
        self.cardinality == Cardinality::Multi
    }

    pub fn memory_type(&self) -> MemoryType {
        self.memory_type.unwrap_or_else(|| memory_type_of_path(&self.name))
    }
}

/// Canonical form of a predicate name: trimmed, lower case, inner spaces and
/// hyphens as underscores (taxonomy dots are kept).
pub fn canonical_name(raw: &str) -> String {
    let lowered = raw.trim().to_lowercase();
    let mut out = String::with_capacity(lowered.len());
    let mut gap = false;
    for ch in lowered.chars() {
        if ch.is_whitespace() || ch == '-' {
            gap = true;
            continue;
        }
        if gap && !out.is_empty() {
            out.push('_');
        }
        gap = false;
        out.push(ch);
    }
    out
}

/// SPEC §2: the memory type a taxonomy path's leading segments imply.
pub fn memory_type_of_path(path: &str) -> MemoryType {
    let mut parts = path.split('.');
    let first = parts.next().unwrap_or("");
    let second = parts.next().unwrap_or("");
    match (first, second) {
        ("context", "current") | ("metrics", "turn") => MemoryType::Working,
        ("experience", _) | ("metrics", "code") => MemoryType::Episodic,
        ("workflow", _) | ("behavior", _) => MemoryType::Procedural,
        _ => MemoryType::Semantic,
    }
}

fn builtins() -> Vec<PredicateSpec> {
    use Cardinality::{Multi, Single};
    let mut specs = vec![
        PredicateSpec::builtin("located_in", &["lives_in", "location", "city", "based_in", "resides_in"], Single, true),
        PredicateSpec::builtin("works_at", &["employer", "works_for", "employed_by", "company"], Single, true),
        PredicateSpec::builtin("job_title", &["role", "title", "position"], Single, true),
        PredicateSpec::builtin("born_on", &["birthday", "date_of_birth", "dob", "birth_date"], Single, false),
        PredicateSpec::builtin("born_in", &["birthplace", "place_of_birth"], Single, false),
        PredicateSpec::builtin("name", &["full_name", "called"], Single, true),
        PredicateSpec::builtin("email", &["email_address"], Single, true),
        PredicateSpec::builtin("timezone", &["time_zone", "tz"], Single, true),
        PredicateSpec::builtin("married_to", &["spouse", "partner"], Single, true),
        PredicateSpec::builtin("allergic_to", &["allergy", "allergies"], Multi, false),
        PredicateSpec::builtin("likes", &["enjoys", "loves"], Multi, false),
        PredicateSpec::builtin("dislikes", &["hates"], Multi, false),
        PredicateSpec::builtin("speaks", &["language", "languages"], Multi, false),
        PredicateSpec::builtin("has_pet", &["pet", "pets"], Multi, false),
        PredicateSpec::builtin("work_location", &["office_location", "work_address"], Single, true),
        PredicateSpec::builtin("manager", &["boss", "reports_to", "supervisor"], Single, true),
        PredicateSpec::builtin("work_phone", &["office_phone", "work_number"], Single, true),
        PredicateSpec::builtin("work_email", &["office_email"], Single, true),
    ];
    for spec in &mut specs {
        spec.half_life_days = match spec.name.as_str() {
            "located_in" | "job_title" | "timezone" => Some(365.0),
            "works_at" | "email" | "married_to" | "name" => Some(730.0),
            _ => None,
        };
        if spec.name == "works_at" {
            spec.object_type = Some("org".to_string());
        }
        // Facts that come with a job: a new employer (or none) puts them in doubt.
        if matches!(spec.name.as_str(), "job_title" | "work_location" | "manager" | "work_phone" | "work_email") {
            spec.depends_on = vec!["works_at".to_string()];
        }
    }
    specs
}

/// Where the spec a predicate gets comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub enum PredicateOrigin {
    /// credence's built-in table.
    Builtin,
    /// `predicates` in the config (it overrides a built-in of the same name).
    Configured,
    /// `memory.definePredicate()`, kept in the store.
    Defined,
}

/// Canonical names and aliases → specs.
#[derive(Debug, Clone)]
pub struct Registry {
    specs: HashMap<String, PredicateSpec>,
    aliases: HashMap<String, String>,
    /// `dependents_of` for every predicate some spec depends on, sorted
    /// (built-ins and configured specs never change after `new`; every write asks).
    dependents: HashMap<String, Vec<String>>,
    /// Names of the configured specs (the rest of `specs` are built-ins).
    configured: Vec<String>,
    /// Specs defined at run time (`definePredicate`, kept in the store),
    /// below built-ins and configured specs; shared by every clone.
    defined: Rc<RefCell<HashMap<String, PredicateSpec>>>,
    /// When the definitions were last read from the store (epoch millis of the engine's clock).
    defined_at: Rc<std::cell::Cell<Option<i64>>>,
}

impl Registry {
    /// The built-ins, extended or overridden by `user` specs (a user spec with a
    /// built-in's name replaces it; its aliases win over built-in aliases).
    pub fn new(user: &[PredicateSpec]) -> Result<Self> {
        let mut reg = Registry { specs: HashMap::new(), aliases: HashMap::new(), dependents: HashMap::new(), configured: Vec::new(), defined: Rc::default(), defined_at: Rc::default() };
        for spec in builtins() {
            reg.insert(spec);
        }
        for (i, spec) in user.iter().enumerate() {
            let name = canonical_name(&spec.name);
            if name.is_empty() {
                return Err(Error::invalid(&format!("predicates[{i}].name"), "must not be empty"));
            }
            if let Some(h) = spec.half_life_days {
                if !(h.is_finite() && h > 0.0) {
                    return Err(Error::invalid(&format!("predicates[{i}].halfLifeDays"), "must be a positive number"));
                }
            }
            if let Some(s) = &spec.strategy {
                crate::strategy::Strategy::parse(s)
                    .map_err(|e| e.with_field(&format!("predicates[{i}].strategy")))?;
            }
            if user[..i].iter().any(|earlier| canonical_name(&earlier.name) == name) {
                return Err(Error::invalid(&format!("predicates[{i}].name"), format!("{name:?} is given twice; one spec per predicate")));
            }
            if spec.object_type.as_deref().is_some_and(|t| t.trim().is_empty()) {
                return Err(Error::invalid(&format!("predicates[{i}].objectType"), "must not be empty when given"));
            }
            if let Some(j) = spec.depends_on.iter().position(|d| canonical_name(d).is_empty()) {
                return Err(Error::invalid(&format!("predicates[{i}].dependsOn[{j}]"), "must not be empty"));
            }
            reg.configured.push(name.clone());
            reg.insert(PredicateSpec { name, ..spec.clone() });
        }
        let mut dependents: HashMap<String, Vec<String>> = HashMap::new();
        for s in reg.specs.values() {
            for d in &s.depends_on {
                let changed = reg.resolve(d).name;
                if changed != s.name {
                    dependents.entry(changed).or_default().push(s.name.clone());
                }
            }
        }
        for list in dependents.values_mut() {
            crate::sort::sort(list);
            list.dedup();
        }
        reg.dependents = dependents;
        Ok(reg)
    }

    fn insert(&mut self, spec: PredicateSpec) {
        for alias in &spec.aliases {
            self.aliases.insert(canonical_name(alias), spec.name.clone());
        }
        self.aliases.remove(&spec.name);
        self.specs.insert(spec.name.clone(), spec);
    }

    /// The built-in table alone.
    pub fn builtin() -> Self {
        let mut reg = Registry { specs: HashMap::new(), aliases: HashMap::new(), dependents: HashMap::new(), configured: Vec::new(), defined: Rc::default(), defined_at: Rc::default() };
        for spec in builtins() {
            reg.insert(spec);
        }
        reg
    }

    /// The predicates that name `changed` (a canonical name) in `dependsOn`, sorted.
    pub fn dependents_of(&self, changed: &str) -> &[String] {
        self.dependents.get(changed).map(Vec::as_slice).unwrap_or_default()
    }

    /// The spec for a raw predicate: by canonical name, then by alias, then
    /// a defined one, else implicit.
    pub fn resolve(&self, raw: &str) -> PredicateSpec {
        self.lookup(raw).map(|(spec, _)| spec).unwrap_or_else(|| PredicateSpec::implicit(&canonical_name(raw)))
    }

    /// The declared spec of a raw predicate and where it comes from; `None`
    /// when it was never declared (it gets the implicit spec).
    pub fn lookup(&self, raw: &str) -> Option<(PredicateSpec, PredicateOrigin)> {
        let name = canonical_name(raw);
        let name = self.aliases.get(&name).filter(|t| self.specs.contains_key(*t)).cloned().unwrap_or(name);
        if let Some(spec) = self.specs.get(&name) {
            let origin = if self.configured.contains(&name) { PredicateOrigin::Configured } else { PredicateOrigin::Builtin };
            return Some((spec.clone(), origin));
        }
        self.defined.borrow().get(&name).map(|spec| (spec.clone(), PredicateOrigin::Defined))
    }

    /// Every declared spec with its origin, sorted by name.
    pub fn all(&self) -> Vec<(PredicateSpec, PredicateOrigin)> {
        let mut all: Vec<(PredicateSpec, PredicateOrigin)> = self.specs.keys().filter_map(|n| self.lookup(n)).collect();
        let defined = self.defined.borrow();
        all.extend(defined.values().filter(|s| !self.specs.contains_key(&s.name)).map(|s| (s.clone(), PredicateOrigin::Defined)));
        crate::sort::sort_by(&mut all, |a, b| a.0.name.cmp(&b.0.name));
        all
    }

    /// Replaces the run-time definitions (as read from the store at
    /// `read_at`, epoch millis). A definition never shadows a built-in or
    /// configured name or alias.
    pub fn set_defined(&self, specs: Vec<PredicateSpec>, read_at: i64) {
        let kept = specs.into_iter().filter(|s| !self.specs.contains_key(&s.name) && !self.aliases.contains_key(&s.name));
        *self.defined.borrow_mut() = kept.map(|s| (s.name.clone(), s)).collect();
        self.defined_at.set(Some(read_at));
    }

    /// When `set_defined` last ran (epoch millis); `None` before the first read.
    pub fn defined_at(&self) -> Option<i64> {
        self.defined_at.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_aliases_and_case() {
        let reg = Registry::new(&[]).unwrap();
        assert_eq!(reg.resolve("Lives In").name, "located_in");
        assert_eq!(reg.resolve("birthday").name, "born_on");
        assert!(!reg.resolve("born_on").time_varying);
        assert!(reg.resolve("allergic_to").is_multi());
        let unknown = reg.resolve("favourite_colour");
        assert_eq!(unknown.cardinality, Cardinality::Single);
        assert!(unknown.time_varying);
    }

    #[test]
    fn user_specs_override_builtins() {
        let mut spec = PredicateSpec::implicit("likes");
        spec.cardinality = Cardinality::Single;
        spec.aliases = vec!["fancies".into()];
        let reg = Registry::new(&[spec]).unwrap();
        assert_eq!(reg.resolve("likes").cardinality, Cardinality::Single);
        assert_eq!(reg.resolve("fancies").name, "likes");
    }

    #[test]
    fn work_facts_depend_on_the_employer_and_users_can_say_otherwise() {
        let reg = Registry::new(&[]).unwrap();
        assert_eq!(reg.dependents_of("works_at"), vec!["job_title", "manager", "work_email", "work_location", "work_phone"]);
        assert!(reg.dependents_of("located_in").is_empty());
        let mut title = PredicateSpec::implicit("role");
        title.name = "job_title".into();
        let mut tz = PredicateSpec::implicit("timezone");
        tz.depends_on = vec!["City".into()];
        let reg = Registry::new(&[title, tz]).unwrap();
        assert!(!reg.dependents_of("works_at").contains(&"job_title".to_string()));
        assert_eq!(reg.dependents_of("located_in"), vec!["timezone"]);
    }

    #[test]
    fn memory_type_table() {
        use MemoryType::*;
        for (path, ty) in [
            ("context.current.task", Working),
            ("metrics.turn.tokens", Working),
            ("experience.debugging", Episodic),
            ("metrics.code.churn", Episodic),
            ("workflow.release", Procedural),
            ("behavior.tone", Procedural),
            ("knowledge.rust", Semantic),
            ("preferences.coding.style", Semantic),
            ("profile.name", Semantic),
            ("context.project.goal", Semantic),
            ("relationships.boss", Semantic),
            ("entity.acme", Semantic),
            ("whatever", Semantic),
        ] {
            assert_eq!(memory_type_of_path(path), ty, "{path}");
        }
    }

    #[test]
    fn rejects_bad_user_specs() {
        let mut spec = PredicateSpec::implicit("x");
        spec.strategy = Some("yolo".into());
        let e = Registry::new(&[spec]).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::InvalidStrategy);
        assert!(e.message.contains("yolo"));
    }
}
