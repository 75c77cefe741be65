//! PREDICT's exact odds of a mêlée and of the morale tests after it
//! (issue 55): the move played by the engine's own steps (the charge and
//! its ride-down, the mêlée, the morale step) once for each way the dice
//! can fall that changes what follows, each way weighted by its chance.
//!
//! The ways are few because each die decides only a count: the defender's
//! fire at its chargers (15 of 36 it fires, then each number killed by the
//! volley's exact distribution), the horsemen's ride-down throws (each
//! number that breaks through, binomially), the mêlée's combats (each pair
//! of figures lost, [`melee_throws`]), and each morale die. The charge's
//! distance and ground are the checked orders' own (the book moves no
//! charge by a die), so nothing of the geometry is sampled. A target
//! already in a mêlée brings its other mêlée into the step: each is
//! fought in the engine's order on what the one before it left. The
//! steps between the charges and the mêlée step (the side's other
//! movement, the guns, a unit leaving a burning section, the musketry)
//! are the engine's own, played on each face of every die they throw; a
//! house's spreading die comes at the move's end.

#[allow(clippy::wildcard_imports)]
use super::*;
use adjutant_dice::{Dice as _, ForcedDice};

/// A unit's fate after the move's morale step, as PREDICT names it.
pub const FATES: [&str; 5] = [
    "no test",
    "test passed",
    "test failed",
    "broken (50% rule)",
    "removed",
];

/// How the move ends for a mêlée's units: one outcome of [`ChargeOdds`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct MeleeEnd {
    /// The unit the attacker fights this move ("" none: its horsemen
    /// burst through to nobody).
    pub with: String,
    /// Chargers killed by the defender's fire at them.
    pub fire_killed: u32,
    /// Infantry ridden down by the charge's horsemen.
    pub ridden: u32,
    /// The mêlée event's losses (attacker, defender: the ridden down
    /// among them while the horsemen stay in contact) and outcome ("" no
    /// mêlée).
    pub losses: [u32; 2],
    pub outcome: String,
    /// The figures each unit of the melees lost to the move's guns and
    /// musketry before the melee step (none listed: none lost).
    pub shot: Vec<(String, u32)>,
    /// Each unit of the charge and the mêlée, and its fate (an index of
    /// [`FATES`]).
    pub fates: Vec<(String, usize)>,
}

/// The exact odds of a move of a mêlée, opened by a charge this move or
/// already in contact, and of the morale tests after it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChargeOdds {
    pub attacker: String,
    /// The unit charged (or already fought).
    pub target: String,
    /// A charge this move (else a mêlée already in contact).
    pub charge: bool,
    pub impetus: bool,
    /// The chance the target fires at its chargers.
    pub fired: f64,
    /// The horsemen that throw to ride the infantry down, if any.
    pub riders: u32,
    /// Each way the move ends and its chance.
    pub outcomes: BTreeMap<MeleeEnd, f64>,
}

/// A position partway through the move: what the engine's turn carries.
#[derive(Clone)]
struct Part {
    st: State,
    ev: Vec<Event>,
    lost: BTreeMap<String, u32>,
    credit: BTreeMap<String, u32>,
}

impl Part {
    /// Run `f` on a turn holding this part, with `faces` for its dice;
    /// the part after it and the dice thrown.
    fn play(
        &self,
        r: &Ruleset,
        faces: Vec<u32>,
        f: impl FnOnce(&mut Turn<'_, '_, '_>),
    ) -> (Part, usize) {
        let mut dice = ForcedDice::new(faces);
        let mut deck = ForcedDice::new(Vec::new());
        let mut chance = Chance {
            dice: &mut dice,
            deck: &mut deck,
        };
        let mut t = Turn {
            r,
            st: self.st.clone(),
            ev: self.ev.clone(),
            chance: Some(&mut chance),
            lost: self.lost.clone(),
            melee_credit: self.credit.clone(),
            not_rested: BTreeSet::new(),
        };
        f(&mut t);
        let part = Part {
            st: t.st,
            ev: t.ev,
            lost: t.lost,
            credit: t.melee_credit,
        };
        (part, dice.rolled())
    }
}

/// Whether `plans`, other than `own`, move one of `ids` (or, if
/// `charges`, make another charge: else the charges are played in turn,
/// [`charge_ways`]). The move's fire at them is played with the engine's
/// own steps ([`between_ways`]).
fn others_touch(plans: &[Plan], own: &str, ids: &[&str], charges: bool) -> bool {
    plans
        .iter()
        .filter(|p| p.unit != own)
        .any(|p| match &p.action {
            Some(Action::Charge { .. }) => charges,
            Some(_) => false,
            None => ids.contains(&p.unit.as_str()),
        })
}

/// Whether the engine's steps between the charges and the mêlée step
/// need `p` to play what befalls the units `ids`: every move and rally
/// (they place the units the guns, the musketry and a burning house's
/// leavers meet), every battery's fire (its sleeve or cones may cover
/// them), and any other fire at one of them. A volley, skirmish or
/// picking-off at another unit is left out: its dice touch none of `ids`.
fn between_needs(r: &Ruleset, p: &Plan, ids: &[String]) -> bool {
    match &p.action {
        None | Some(Action::Charge { .. } | Action::Canister(_)) => true,
        Some(Action::Fire(x)) => troop(r, &p.end).is("artillery") || ids.contains(x),
        Some(Action::PickOff(x)) => ids.contains(x),
    }
}

/// The most plays of the steps between the charges and the mêlée step
/// for one answer, over all its ways (beyond, the answer samples the
/// move): each die thrown there is followed on each of its six faces.
const MAX_PLAYS: usize = 20_000;

/// The engine's steps between the charges and the mêlée step on `part`
/// (the side's other movement, the General's rallies, the artillery,
/// "Occupants must move at least 3\" away" from a burning section, the
/// musketry, a fallen General), the movement with all the side's plans
/// `all` (a unit may move and fire) and the rest with those of them
/// `plans` that may touch the melees' units ([`between_needs`]): every
/// die those steps throw followed on each of its six faces, each way with
/// its chance. Movement and a burning house's leavers throw no die. None:
/// the plays left, `budget`, run out.
fn between_ways(
    r: &Ruleset,
    part: &Part,
    (all, plans): (&[Plan], &[Plan]),
    budget: &mut usize,
) -> Option<Vec<(f64, Part)>> {
    each_face(r, part, Some(budget), |t| {
        movement(t, all);
        general::rallies(t, plans);
        artillery(t, plans);
        houses::leave_fires(t);
        musketry(t, plans);
        general::fallen(t);
    })
}

/// `step` played on `part` with every die it throws followed on each of
/// its six faces, or on each group of faces that does alike
/// ([`next_dice`]: a gun's sleeve dice by their difference, the dice of
/// the figures under a sleeve or shell-burst by the kills they make): each
/// way with its chance. With a `budget`, each play spends one, and None
/// when it runs out.
///
/// The guns fire from where the units stood before any fired, their
/// kills and damage applied once all have fired (artillery.rs
/// `artillery`), so a gun reads of the shots before it only the houses
/// they struck. The ways waiting at a gun's first die are grouped by
/// that alone ([`Group`]): the gun's ways are followed once for the
/// group, from one of its ways, and each of them then carries every
/// member's kills and damage added to its own (issue 55): the work is the
/// group's ways plus the gun's plus their distinct sums, not their
/// product.
fn each_face(
    r: &Ruleset,
    part: &Part,
    mut budget: Option<&mut usize>,
    step: impl Fn(&mut Turn<'_, '_, '_>),
) -> Option<Vec<(f64, Part)>> {
    let mut out = Vec::new();
    // (chance, faces, whether it may go on past a gun's first die, the
    // group it stands for)
    let mut open: Vec<(f64, Vec<u32>, bool, Option<usize>)> = vec![(1.0, Vec::new(), false, None)];
    let mut groups: Vec<Group> = Vec::new();
    // Ways waiting at a gun's first die, by the houses the shots before
    // it leave (and every other event before it).
    let mut parked: BTreeMap<String, Group> = BTreeMap::new();
    // Ways of a group at the step's end, by their events' houses and sums.
    let mut finals: BTreeMap<(String, Sig), (f64, Vec<u32>)> = BTreeMap::new();
    // The ways of a group's followed way that stop (at the next gun's
    // first die, or at the end), by their group, where they stop, their
    // houses and what the gun adds: those alike are carried to the group's
    // members once ([`Group::combine`]).
    let mut pending: BTreeMap<Stop, (f64, Vec<u32>, usize)> = BTreeMap::new();
    loop {
        while let Some((q, faces, free, grp)) = open.pop() {
            if let Some(b) = budget.as_deref_mut() {
                *b = b.checked_sub(1)?;
            }
            let (after, thrown) = part.play(r, faces.clone(), &step);
            if thrown <= faces.len() {
                match grp {
                    None => out.push((q, after)),
                    Some(g) => {
                        // Merged with the other ways to the same end by
                        // their sums, each then played once.
                        let key: Vec<String> = after.ev.iter().map(terrain_effect).collect();
                        let adds = groups[g].adds(&after.ev);
                        let e = pending.entry((g, true, key.join("\n"), adds));
                        e.or_insert((0.0, faces, 0)).0 += q;
                    }
                }
                continue;
            }
            let next = next_dice(
                r,
                part,
                (&faces, free),
                &after,
                &step,
                budget.as_deref_mut(),
            )?;
            match next {
                Next::Wait(at) => {
                    let done = &after.ev[part.ev.len()..at];
                    let key: Vec<String> = done.iter().map(terrain_effect).collect();
                    let key = key.join("\n");
                    match grp {
                        None => {
                            let members = BTreeMap::from([(Sig::of(done), (q, faces.clone()))]);
                            park(&mut parked, key, (at, faces), members);
                        }
                        Some(g) => {
                            let adds = groups[g].adds(&after.ev[..at]);
                            let e = pending.entry((g, false, key, adds));
                            e.or_insert((0.0, faces, at)).0 += q;
                        }
                    }
                }
                Next::Ways(_, false) if grp.is_some() => {
                    // A die outside the gun's shot (the musketry, canister):
                    // each member's sums go on as ways of their own.
                    let g = grp.unwrap_or_default();
                    let all = groups[g].combine(q, &Sig::default(), &faces);
                    open.extend(all.into_values().map(|(q, f)| (q, f, false, None)));
                }
                Next::Ways(ways, _) => {
                    for (p, next) in ways {
                        let mut more = faces.clone();
                        more.extend(next);
                        open.push((q * p, more, false, grp));
                    }
                }
            }
        }
        for ((g, end, key, adds), (q, faces, at)) in std::mem::take(&mut pending) {
            let members = groups[g].combine(q, &adds, &faces);
            if end {
                for (s, (qm, f)) in members {
                    finals.entry((key.clone(), s)).or_insert((0.0, f)).0 += qm;
                }
            } else {
                park(&mut parked, key, (at, faces), members);
            }
        }
        if !finals.is_empty() {
            let ends = std::mem::take(&mut finals).into_values();
            open.extend(ends.map(|(q, f)| (q, f, false, None)));
            continue;
        }
        if parked.is_empty() {
            return Some(out);
        }
        for g in std::mem::take(&mut parked).into_values() {
            open.push((g.q, g.rep.1.clone(), true, Some(groups.len())));
            groups.push(g);
        }
    }
}

/// Where a way of a group's followed way stops ([`each_face`]): its
/// group, whether at the end (else at a gun's first die), its houses
/// ([`terrain_effect`]) and what its shots add from the group's gun on.
type Stop = (usize, bool, String, Sig);

/// Park the ways `members` (each distinct sum, its chance and faces) at a
/// gun's first die with the others whose events before it read `key`
/// ([`terrain_effect`]); `rep`: the index of the gun's shot event and the
/// faces of the way followed if the group is new.
fn park(
    parked: &mut BTreeMap<String, Group>,
    key: String,
    rep: (usize, Vec<u32>),
    members: BTreeMap<Sig, (f64, Vec<u32>)>,
) {
    let e = parked.entry(key).or_insert_with(|| Group {
        q: 0.0,
        rep,
        members: BTreeMap::new(),
    });
    for (s, (qm, f)) in members {
        e.q += qm;
        e.members.entry(s).or_insert((0.0, f)).0 += qm;
    }
}

/// What the shots of a step kill and damage, summed: the rank and file of
/// each unit killed by the figures' dice, and the damage points of each
/// gun (unit, gun) hit by counter-battery. Both are applied once every
/// gun has fired, so a way's sum is all that follows reads of them.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Sig {
    kills: BTreeMap<String, u32>,
    damage: BTreeMap<(String, usize), u32>,
}

impl Sig {
    /// The sums of the shots among `ev`.
    fn of(ev: &[Event]) -> Sig {
        let mut s = Sig::default();
        for e in ev {
            let (killed, cb) = match e {
                Charge::Roundshot {
                    killed,
                    counter_battery,
                    ..
                } => (Some(killed), Some(counter_battery)),
                Charge::Shell {
                    killed,
                    counter_battery,
                    ..
                } => (killed.as_ref(), counter_battery.as_ref()),
                Charge::Canister { killed, .. } => (Some(killed), None),
                _ => (None, None),
            };
            for (u, k) in killed.into_iter().flatten() {
                *s.kills.entry(u.clone()).or_default() += k;
            }
            for c in cb.into_iter().flatten() {
                *s.damage.entry((c.unit.clone(), c.gun)).or_default() += c.damage;
            }
        }
        s
    }

    /// `self` and `more` summed.
    fn plus(&self, more: &Sig) -> Sig {
        let mut s = self.clone();
        for (u, k) in &more.kills {
            *s.kills.entry(u.clone()).or_default() += k;
        }
        for (g, k) in &more.damage {
            *s.damage.entry(g.clone()).or_default() += k;
        }
        s
    }
}

/// The ways waiting at a gun's first die that the step's events before
/// it leave alike but for the shots' kills and damage ([`Sig`]): the
/// group's chance, the way followed for all of them (the index of the
/// event of its gun's shot, and its faces) and each distinct sum with its
/// chance and the faces of one way to it.
struct Group {
    q: f64,
    rep: (usize, Vec<u32>),
    members: BTreeMap<Sig, (f64, Vec<u32>)>,
}

impl Group {
    /// What the shots among `ev` (a way of the followed way's events
    /// until it stops) add from the group's gun on.
    fn adds(&self, ev: &[Event]) -> Sig {
        Sig::of(ev.get(self.rep.0..).unwrap_or_default())
    }

    /// A way of the group's followed way (chance `q`, what its shots add
    /// `shots`, its faces `faces`: the followed way's and more) carried to
    /// every member: each member's faces then the same more, its sums
    /// with `shots` added, its chance its share of the group's times `q`. The members' sums are
    /// distinct, so are these: the caller merges them with other ways'
    /// (the convolution of the group's sums with the gun's).
    fn combine(&self, q: f64, shots: &Sig, faces: &[u32]) -> BTreeMap<Sig, (f64, Vec<u32>)> {
        let more = &faces[self.rep.1.len().min(faces.len())..];
        let mut out: BTreeMap<Sig, (f64, Vec<u32>)> = BTreeMap::new();
        for (s, (qm, f)) in &self.members {
            let mut f = f.clone();
            f.extend_from_slice(more);
            let e = out.entry(s.plus(shots)).or_insert((0.0, f));
            e.0 += q * qm / self.q;
        }
        out
    }
}

/// Ways the next dice can fall: (chance, faces).
type Ways = Vec<(f64, Vec<u32>)>;

/// What [`next_dice`] found the next die to be.
enum Next {
    /// The ways the next dice can fall: (chance, faces), and whether the
    /// die is one of a gun's shot (its placing dice, its figures' dice,
    /// a house's or counter-battery's die).
    Ways(Ways, bool),
    /// A gun's first die, the event it makes at this index: the way waits
    /// there with every other that the step's events before it leave on
    /// the same houses ([`terrain_effect`]), each way's kills and damage
    /// kept apart ([`Group`]): the guns fire from the positions before any
    /// fired and their kills and damage are applied once all have fired
    /// (artillery.rs `artillery`), so a later gun reads of those shots
    /// only the houses they struck.
    Wait(usize),
}

/// What an event does to the later shots of the step: all of it but a
/// shot's dice, sleeve, kills and counter-battery damage (its houses kept).
fn terrain_effect(e: &Event) -> String {
    let mut e = e.clone();
    match &mut e {
        Charge::Roundshot {
            killed,
            counter_battery,
            ..
        } => {
            killed.clear();
            counter_battery.clear();
        }
        Charge::Shell {
            killed,
            counter_battery,
            ..
        } => {
            (*killed, *counter_battery) = (None, None);
        }
        Charge::Canister { killed, .. } => killed.clear(),
        _ => {}
    }
    effect(&e)
}

/// What an event does for the rest of the step: a shot's kills, houses
/// and counter-battery damage, not the dice or the sleeve that made them.
fn effect(e: &Event) -> String {
    let mut e = e.clone();
    match &mut e {
        Charge::Roundshot {
            plus,
            minus,
            sleeve,
            sleeve_text,
            figures,
            dice,
            counter_battery,
            ..
        } => {
            (*plus, *minus, *sleeve, *figures) = (0, 0, 0, 0);
            sleeve_text.clear();
            dice.clear();
            counter_battery.iter_mut().for_each(|c| c.die = 0);
        }
        Charge::Shell {
            sector,
            figures,
            dice,
            counter_battery,
            ..
        } => {
            *sector = 0;
            (*figures, *dice) = (None, None);
            counter_battery.iter_mut().flatten().for_each(|c| c.die = 0);
        }
        Charge::Canister { dice, .. } => dice.clear(),
        _ => {}
    }
    format!("{e:?}")
}

/// The next die on each of its six faces (`shot`: one of a gun's shot).
fn six(shot: bool) -> Option<Next> {
    Some(Next::Ways(
        (1..=6).map(|f| (1.0 / 6.0, vec![f])).collect(),
        shot,
    ))
}

/// The dice `step` throws next on `part` after `faces` (`after`: the play
/// with them, every further die a 1), grouped where the engine reads them
/// only so (issue 55): roundshot's + and - dice by their difference ("Move
/// sleeve difference between scores toward or away from target": 11
/// ways, not 36), and the dice of the figures under a sleeve or a
/// shell-burst by the number of each unit's figures killed (a figure "diced
/// for as potential casualties": a die kills it or not, so k of a unit's n
/// figures fall binomially), not each face of each die. Else the next die
/// on each of its six faces. The die is found by playing it as a 2
/// instead: the first event that differs names it (a shot's `plus`, or
/// one of its `dice`); each covered figure's unit by playing its die alone
/// as a kill. Each play spends the `budget`.
fn next_dice(
    r: &Ruleset,
    part: &Part,
    (faces, free): (&[u32], bool),
    after: &Part,
    step: &impl Fn(&mut Turn<'_, '_, '_>),
    mut budget: Option<&mut usize>,
) -> Option<Next> {
    let mut spend = |n: usize| -> Option<()> {
        if let Some(b) = budget.as_deref_mut() {
            *b = b.checked_sub(n)?;
        }
        Some(())
    };
    spend(1)?;
    let play = |more: &[u32]| {
        let mut f = faces.to_vec();
        f.extend_from_slice(more);
        part.play(r, f, step).0
    };
    let two = play(&[2]);
    let from = part.ev.len().min(after.ev.len()).min(two.ev.len());
    let Some(at) = (from..after.ev.len().min(two.ev.len())).find(|i| after.ev[*i] != two.ev[*i])
    else {
        return six(false);
    };
    if let Some(ways) = checked_volley_ways(&after.ev[at], &two.ev[at], at, &play, &mut spend)? {
        return Some(Next::Ways(ways, false));
    }
    let in_shot = matches!(
        after.ev[at],
        Charge::Roundshot { .. } | Charge::Shell { .. } | Charge::Canister { .. }
    );
    let single = || six(in_shot);
    // (the shot's + die, its figures' dice, the faces that kill)
    let shot = |e: &Event| match e {
        Charge::Roundshot {
            plus, dice, kill, ..
        } => Some((Some(*plus), dice.clone(), kill.clone())),
        Charge::Shell {
            dice: Some(d),
            kill: Some(k),
            ..
        } => Some((None, d.clone(), k.clone())),
        Charge::Canister { dice, kill, .. } => Some((None, dice.clone(), kill.clone())),
        _ => None,
    };
    // A gun's first die (roundshot's + die, a shell's sector die): wait
    // for the other ways the shots before it leave alike.
    let first = matches!(
        (&after.ev[at], &two.ev[at]),
        (
            Charge::Roundshot { plus: 1, .. },
            Charge::Roundshot { plus: 2, .. }
        ) | (
            Charge::Shell { sector: 1, .. },
            Charge::Shell { sector: 2, .. }
        )
    );
    if first && !free {
        return Some(Next::Wait(at));
    }
    let (Some((p1, d1, kill)), Some((p2, d2, _))) = (shot(&after.ev[at]), shot(&two.ev[at])) else {
        return single();
    };
    if p1 == Some(1) && p2 == Some(2) {
        // The + die, then the - die: only their difference moves the
        // sleeve, and differences that put the same figures of each unit
        // (and the same houses and guns) under it are one way: each played
        // with every further die a kill, the event then names them.
        let all = kill.iter().max().copied().unwrap_or(1);
        let mut ways: BTreeMap<String, (f64, Vec<u32>)> = BTreeMap::new();
        for d in -5_i32..=5 {
            spend(1)?;
            let pm = vec![1 + d.max(0) as u32, 1 + (-d).max(0) as u32];
            let mut f = pm.clone();
            f.extend(std::iter::repeat_n(all, 64));
            let one = play(&f);
            let covers = match one.ev.get(at) {
                Some(Charge::Roundshot {
                    figures,
                    killed,
                    houses,
                    counter_battery,
                    ..
                }) => format!("{figures} {killed:?} {houses:?} {counter_battery:?}"),
                _ => format!("{d}"),
            };
            ways.entry(covers).or_insert((0.0, pm)).0 += f64::from(6 - d.abs()) / 36.0;
        }
        return Some(Next::Ways(ways.into_values().collect(), true));
    }
    let Some(j) = (0..d1.len().min(d2.len())).find(|i| d1[*i] != d2[*i]) else {
        return single();
    };
    if p1 != p2 || d1.len() != d2.len() || d1[j] != 1 || d2[j] != 2 {
        return single();
    }
    let (kills, misses): (Vec<u32>, Vec<u32>) = (1..=6).partition(|f| kill.contains(f));
    let (Some(&k), Some(&m)) = (kills.first(), misses.first()) else {
        // Every face kills, or none: one way.
        return Some(Next::Ways(vec![(1.0, vec![1; d1.len() - j])], true));
    };
    // Which unit each die's figure belongs to: its die alone a kill.
    let n = d1.len() - j;
    let mut units: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for i in 0..n {
        spend(1)?;
        let mut f = vec![m; n];
        f[i] = k;
        let one = play(&f);
        let killed = match one.ev.get(at) {
            Some(Charge::Roundshot { killed, .. }) => killed.clone(),
            Some(Charge::Shell {
                killed: Some(x), ..
            }) => x.clone(),
            Some(Charge::Canister { killed, .. }) => killed.clone(),
            _ => return single(),
        };
        let mut hit = killed.into_iter().filter(|(_, c)| *c > 0);
        let (Some((u, 1)), None) = (hit.next(), hit.next()) else {
            return single();
        };
        units.entry(u).or_default().push(i);
    }
    // Every count of each unit's figures killed, binomially.
    let pk = kills.len() as f64 / 6.0;
    let mut ways: Vec<(f64, Vec<u32>)> = vec![(1.0, vec![m; n])];
    for dice in units.values() {
        let c = dice.len();
        let mut next = Vec::new();
        for (w, f) in &ways {
            for killed in 0..=c {
                let mut f = f.clone();
                for i in &dice[..killed] {
                    f[*i] = k;
                }
                let ways_of = (0..killed).fold(1.0, |a, i| a * (c - i) as f64 / (i + 1) as f64);
                let q = ways_of * pk.powi(killed as i32) * (1.0 - pk).powi((c - killed) as i32);
                next.push((w * q, f));
            }
        }
        ways = next;
    }
    Some(Next::Ways(ways, true))
}

/// [`volley_ways`] at event `at`, each way played once (`play`, each
/// play spending one of the budget: `spend`) to check it makes the kills
/// it stands for: the ways, or Some(None) to follow the volley's dice one
/// by one as before (not a volley's first die, or a way that does not
/// check); None when the budget runs out.
fn checked_volley_ways(
    a: &Event,
    b: &Event,
    at: usize,
    play: &dyn Fn(&[u32]) -> Part,
    spend: &mut dyn FnMut(usize) -> Option<()>,
) -> Option<Option<Ways>> {
    let Some(ways) = volley_ways(a, b) else {
        return Some(None);
    };
    let mut checked = Vec::with_capacity(ways.len());
    for (k, p, f) in ways {
        spend(1)?;
        match play(&f).ev.get(at) {
            Some(Charge::Volley { killed, .. }) if *killed == k => checked.push((p, f)),
            _ => return Some(None),
        }
    }
    Some(Some(checked))
}

/// A volley's dice at once (issue 55), when the next die is its first
/// (`a` the volley with it a 1, `b` with it a 2): the engine reads of them
/// only the number of rank and file killed ("each hit a die for the
/// figure of the target group of 6 it strikes": distinct figures), so
/// each number is one way, its chance exact
/// ([`crate::predict::group_struck`] for each group, summed), its faces
/// one throw that kills exactly that many: (killed, chance, faces). None
/// when it is not a volley's first die, or no such throw is found for a
/// number that may happen (the dice are then followed one by one).
fn volley_ways(a: &Event, b: &Event) -> Option<Vec<(u32, f64, Vec<u32>)>> {
    let (
        Charge::Volley {
            dice: da, deduct, ..
        },
        Charge::Volley { dice: db, .. },
    ) = (a, b)
    else {
        return None;
    };
    if da.first()?.die != 1 || db.first()?.die != 2 || da.len() != db.len() {
        return None;
    }
    let slots: Vec<(u32, u32)> = da.iter().map(|d| (d.group, d.size)).collect();
    let mut total = vec![1.0];
    let groups: BTreeSet<u32> = slots.iter().map(|s| s.0).collect();
    for g in groups {
        let size = slots.iter().find(|s| s.0 == g).map_or(0, |s| s.1);
        let m = slots.iter().filter(|s| s.0 == g).count();
        let struck = crate::predict::group_struck(m, size.min(6) as usize, *deduct);
        total = adjutant_measured_core::predict::add(&total, &struck);
    }
    let mut ways = Vec::new();
    for (k, p) in (0u32..).zip(total) {
        if p > 0.0 {
            ways.push((k, p, volley_faces(&slots, *deduct, k)?));
        }
    }
    Some(ways)
}

/// One throw of a volley whose dice go to `slots` (each die's target group
/// and its size) that kills exactly `k`: each die's face, then the
/// figure die of each of its hits (a die less `deduct`), in the engine's
/// order. Each hit kills a new figure of its group or strikes one already
/// hit (or, in a group under 6, a figure not there); a die of 1 with no
/// deduction must hit. Found by a depth-first search of each die's new
/// kills, most first; None past a few thousand steps.
fn volley_faces(slots: &[(u32, u32)], deduct: u32, k: u32) -> Option<Vec<u32>> {
    fn go(
        slots: &[(u32, u32)],
        deduct: u32,
        need: u32,
        used: &mut BTreeMap<u32, u32>,
        out: &mut Vec<u32>,
        steps: &mut u32,
    ) -> bool {
        *steps += 1;
        let Some((&(g, size), rest)) = slots.split_first() else {
            return need == 0;
        };
        if *steps > 5_000 {
            return false;
        }
        let size = size.min(6);
        let u = used.get(&g).copied().unwrap_or(0);
        let most = need
            .min(size - u.min(size))
            .min(6u32.saturating_sub(deduct));
        for new in (0..=most).rev() {
            // The die's hits: the new kills, and one wasted where the die
            // must hit (no deduction) and none is new.
            let hits = if deduct == 0 { new.max(1) } else { new };
            let die = deduct + hits;
            if !(1..=6).contains(&die) {
                continue;
            }
            let waste = if hits > new {
                if u > 0 {
                    Some(1)
                } else if size < 6 {
                    Some(size + 1)
                } else {
                    continue;
                }
            } else {
                None
            };
            let mark = out.len();
            out.push(die);
            out.extend(u + 1..=u + new);
            out.extend(waste);
            used.insert(g, u + new);
            if go(rest, deduct, need - new, used, out, steps) {
                return true;
            }
            used.insert(g, u);
            out.truncate(mark);
        }
        false
    }
    let mut out = Vec::new();
    let mut steps = 0;
    go(slots, deduct, k, &mut BTreeMap::new(), &mut out, &mut steps).then_some(out)
}

/// The most ways the charge step is followed through (beyond, the answer
/// samples the move).
const MAX_WAYS: usize = 4_096;

/// What [`charge_ways`] notes of the charge it follows: the chance its
/// target fires at it, and the horsemen that throw to ride down.
#[derive(Default)]
struct Seen {
    fired: f64,
    riders: u32,
}

/// The engine's charge step for plan `q` on each part of `ways`: whether
/// the charge is made, the defender's fire at its chargers (15 of 36 it
/// throws higher, then each number its close-range volley kills) and the
/// ride-down (each number breaking through), each way with its chance.
/// `own`: the charge PREDICT answers for, which must be made as ordered
/// (else None); another charge that lapses is one way.
fn charge_ways(
    r: &Ruleset,
    q: &Plan,
    ways: Vec<(f64, Part)>,
    own: bool,
    seen: &mut Seen,
) -> Option<Vec<(f64, Part)>> {
    let mut out = Vec::new();
    for (pw, part) in ways {
        let mut made = None;
        let (start, _) = part.play(r, Vec::new(), |t| made = charge_made(t, q));
        let Some((ch, tg)) = made else {
            if own {
                return None;
            }
            out.push((pw, start));
            continue;
        };
        if own && start.ev.len() > part.ev.len() {
            return None;
        }
        let mut fire: Vec<(f64, Option<u32>)> = vec![(1.0, None)];
        if fires_at_chargers(r, &tg) {
            let band = chargers_band(r, &tg)?;
            let dice = firers(r, &tg) / troop(r, &tg).fire_per.max(1);
            let killed = crate::predict::volley_distribution(dice, band.open, ch.rf, r.group);
            let fired = 15.0 / 36.0;
            seen.fired += pw * fired;
            fire = vec![(21.0 / 36.0, None)];
            fire.extend(
                killed
                    .iter()
                    .enumerate()
                    .filter(|(_, q)| **q > 0.0)
                    .map(|(k, q)| (fired * q, Some(k as u32))),
            );
        }
        for (pf, k) in fire {
            let (shot, _) = start.play(r, Vec::new(), |t| {
                if let Some(k) = k {
                    let k = t.kill(&ch.id, k, tg.side);
                    chargers_hit(t, &ch, &tg, k);
                }
            });
            for (pr, struck) in ride_ways(r, &shot, q, &ch, &tg, &mut seen.riders) {
                out.push((pw * pf * pr, struck));
            }
        }
        if out.len() > MAX_WAYS {
            return None;
        }
    }
    Some(out)
}

/// The exact odds of `unit`'s charge this move (its plan among `plans`,
/// the side's checked orders) on `st`, the position after the move's
/// forced moves, the enemy standing with the standing orders `st` gives
/// it: the fire at the chargers, the ride-down, the mêlée's first move and
/// the morale tests of the units in it. The side's other charges are
/// played in the step's order, each way their dice fall ([`charge_ways`]),
/// and a target already in a mêlée brings that mêlée into the step
/// ([`melee_ways`]). None: not reckoned exactly (the charge is not made as
/// ordered, another order of the move moves one of the units, more than
/// [`MAX_WAYS`] ways or [`MAX_PLAYS`] plays). The move's guns and
/// musketry, and a unit leaving a burning section, are played between
/// the charges and the mêlée step by the engine's own steps, every die
/// on each face ([`between_ways`]).
#[must_use]
pub fn charge_odds(r: &Ruleset, st: &State, plans: &[Plan], unit: &str) -> Option<ChargeOdds> {
    let pos = plans.iter().position(|p| p.unit == unit)?;
    let p = &plans[pos];
    let Some(Action::Charge {
        target, impetus, ..
    }) = &p.action
    else {
        return None;
    };
    if others_touch(plans, unit, &[unit, target], false) {
        return None;
    }
    // The ids as the position spells them.
    let (unit, target) = (&st.unit(unit)?.id, &st.unit(target)?.id);
    let start = Part {
        st: st.clone(),
        ev: Vec::new(),
        lost: BTreeMap::new(),
        credit: BTreeMap::new(),
    };
    let is_charge = |q: &&Plan| matches!(q.action, Some(Action::Charge { .. }));
    let mut ways = vec![(1.0, start)];
    let mut others = Seen::default();
    for q in plans[..pos].iter().filter(is_charge) {
        ways = charge_ways(r, q, ways, false, &mut others)?;
    }
    let mut seen = Seen::default();
    ways = charge_ways(r, p, ways, true, &mut seen)?;
    for q in plans[pos + 1..].iter().filter(is_charge) {
        ways = charge_ways(r, q, ways, false, &mut others)?;
    }
    let mut out = ChargeOdds {
        attacker: unit.to_string(),
        target: target.clone(),
        charge: true,
        impetus: *impetus,
        fired: seen.fired,
        riders: seen.riders,
        outcomes: BTreeMap::new(),
    };
    // Ways that differ only in units this charge's melees never touch are
    // one way for it (another charge's dice far off): settled once.
    let mut merged: BTreeMap<String, (f64, Part, Vec<String>)> = BTreeMap::new();
    let mut budget = MAX_PLAYS;
    for (pw, struck) in ways {
        let with = struck
            .st
            .unit(unit)
            .and_then(|u| u.melee.as_ref())
            .map(|m| m.with.clone());
        let mut ids = vec![unit.to_string(), target.clone()];
        if let Some(w) = with.filter(|w| w != target) {
            if others_touch(plans, unit, &[w.as_str()], false) {
                return None;
            }
            ids.push(w);
        }
        let key = projection(&struck, unit, &in_melees(&struck.st, plans, unit, &ids)?);
        merged.entry(key).or_insert_with(|| (0.0, struck, ids)).0 += pw;
    }
    for (pw, struck, ids) in merged.into_values() {
        settle(
            r,
            &struck,
            plans,
            unit,
            &ids,
            (pw, &mut budget),
            &mut out.outcomes,
        )?;
    }
    Some(out)
}

/// What of `part` the rest of the move of `aid`'s melees reads: the units
/// `ids` (the melees' units), their losses and credits, and `aid`'s
/// ride-down.
fn projection(part: &Part, aid: &str, ids: &[String]) -> String {
    let mine = |k: &str| {
        ids.iter()
            .any(|id| k == id || k.ends_with(&format!(":{id}")))
    };
    let units: Vec<&Unit> = part
        .st
        .units
        .iter()
        .filter(|u| ids.contains(&u.id))
        .collect();
    let lost: Vec<_> = part.lost.iter().filter(|(k, _)| mine(k)).collect();
    let credit: Vec<_> = part.credit.iter().filter(|(k, _)| mine(k)).collect();
    let ridden: Vec<&Event> = part
        .ev
        .iter()
        .filter(|e| matches!(e, Charge::RideDown { unit, .. } if unit == aid))
        .collect();
    format!(
        "{units:?} {lost:?} {credit:?} {ridden:?} {:?}",
        part.st.terrain
    )
}

/// The charge strikes, for each number of horsemen that ride the infantry
/// down (a die each, binomially; one way when no ride-down is thrown): its
/// chance and the part after it. `riders`: the horsemen that throw.
fn ride_ways(
    r: &Ruleset,
    shot: &Part,
    p: &Plan,
    ch: &Unit,
    tg: &Unit,
    riders: &mut u32,
) -> Vec<(f64, Part)> {
    let strike_with = |faces: Vec<u32>| {
        shot.play(r, faces, |t| {
            let fired = t.melee_credit.contains_key(&ch.id).then(|| FireAtChargers {
                attacker: 1,
                defender: 2,
                fired: true,
                killed: t.melee_credit.get(&ch.id).copied(),
            });
            strike(t, p, ch, tg, fired);
        })
    };
    let (dry, n) = strike_with(Vec::new());
    let need = dry.ev[shot.ev.len()..].iter().find_map(|e| match e {
        Charge::RideDown { unit, need, .. } if *unit == ch.id => Some(need.clone()),
        _ => None,
    });
    let Some(need) = need.filter(|_| n > 0) else {
        return vec![(1.0, dry)];
    };
    *riders = n as u32;
    let hit = need.first().copied().unwrap_or(6);
    let miss = (1..=6).find(|f| !need.contains(f)).unwrap_or(1);
    let q = need.len() as f64 / 6.0;
    let mut ways = Vec::new();
    let mut binom = vec![1.0];
    for _ in 0..n {
        binom = adjutant_measured_core::predict::add(&binom, &[1.0 - q, q]);
    }
    for (b, pb) in binom.iter().enumerate() {
        let faces: Vec<u32> = (0..n).map(|i| if i < b { hit } else { miss }).collect();
        ways.push((*pb, strike_with(faces).0));
    }
    ways
}

/// The rest of the move for the part `before` the mêlée step: the
/// attacker `aid`'s mêlée (if it is in one), then the morale step of the
/// units `ids`, each way added to `outcomes` with its chance times `p`.
/// `budget`: the plays left for the steps before the melee step
/// ([`between_ways`]).
fn settle(
    r: &Ruleset,
    before: &Part,
    plans: &[Plan],
    aid: &str,
    ids: &[String],
    (p, budget): (f64, &mut usize),
    outcomes: &mut BTreeMap<MeleeEnd, f64>,
) -> Option<()> {
    let ids = &in_melees(&before.st, plans, aid, ids)?;
    // The steps between the charges and the melee step (the side's other
    // movement, the guns, "Occupants must move at least 3\" away" from a
    // burning section, the musketry), each way their dice fall; ways that
    // leave the melees' units alike are one way. A burning house's
    // spreading die comes at the move's end, after the morale step.
    let needed: Vec<Plan> = plans
        .iter()
        .filter(|q| between_needs(r, q, ids))
        .cloned()
        .collect();
    let mut mids: BTreeMap<String, (f64, Part)> = BTreeMap::new();
    for (pb, mid) in between_ways(r, before, (plans, &needed), budget)? {
        let key = projection(&mid, aid, ids);
        mids.entry(key).or_insert_with(|| (0.0, mid)).0 += pb;
    }
    for (pb, mid) in mids.into_values() {
        settle_melees(r, before, &mid, plans, aid, ids, p * pb, outcomes)?;
    }
    Some(())
}

/// [`settle`] from `mid`, the part just before the melee step: the melees
/// of `ids` and the morale step, each way added to `outcomes` with its
/// chance times `p`.
#[allow(clippy::too_many_arguments)]
fn settle_melees(
    r: &Ruleset,
    before: &Part,
    mid: &Part,
    plans: &[Plan],
    aid: &str,
    ids: &[String],
    p: f64,
    outcomes: &mut BTreeMap<MeleeEnd, f64>,
) -> Option<()> {
    let mut only = mid.clone();
    only.st.units.retain(|u| ids.contains(&u.id));
    for (pm, fought) in melee_ways(r, &only)? {
        // The morale dice: each face of each die the step throws (one
        // unit's result may decide whether the next tests at all: a unit
        // breaking off frees its opponent from the 50% rule's exception).
        for (q, after) in each_face(r, &fought, None, |t| morale(t, plans, &BTreeSet::new()))? {
            let end = ending(before, mid, &after, aid, ids);
            *outcomes.entry(end).or_default() += p * pm * q;
        }
    }
    Some(())
}

/// `ids` and every unit in a melee with one of them, over and over (a
/// charge at a unit already in a melee: its opponent's melee is fought in
/// the same step, "Same troop types cannot exceed 2 to 1"). None: another
/// order of the move moves one so added.
fn in_melees(st: &State, plans: &[Plan], aid: &str, ids: &[String]) -> Option<Vec<String>> {
    let mut ids = ids.to_vec();
    loop {
        let more: Vec<String> = st
            .units
            .iter()
            .filter(|u| !ids.contains(&u.id))
            .filter(|u| {
                u.melee.as_ref().is_some_and(|m| ids.contains(&m.with))
                    || ids.iter().any(|id| {
                        st.unit(id)
                            .and_then(|v| v.melee.as_ref())
                            .is_some_and(|m| m.with == u.id)
                    })
            })
            .map(|u| u.id.clone())
            .collect();
        if more.is_empty() {
            return Some(ids);
        }
        let refs: Vec<&str> = more.iter().map(String::as_str).collect();
        if others_touch(plans, aid, &refs, false) {
            return None;
        }
        ids.extend(more);
    }
}

/// The engine's melee step on `part` (the units of the melees only):
/// each melee in the step's order, each way its dice can fall
/// ([`melee_throws`]) on what the melees fought before it leave, with its
/// chance. None: a melee whose throws are not reckoned.
fn melee_ways(r: &Ruleset, part: &Part) -> Option<Vec<(f64, Part)>> {
    // The engine's own list, in its order (`melee::melee`).
    let pairs = super::in_contact(&part.st);
    let mut ways = vec![(1.0, part.clone())];
    for (aid, did) in pairs {
        let mut next = Vec::new();
        for (p, w) in ways {
            let both = w.st.unit(&aid).is_some() && w.st.unit(&did).is_some();
            let throws = if both {
                let t = Turn {
                    r,
                    st: w.st.clone(),
                    ev: Vec::new(),
                    chance: None,
                    lost: w.lost.clone(),
                    melee_credit: w.credit.clone(),
                    not_rested: BTreeSet::new(),
                };
                melee_throws(&t, &aid).filter(|_| {
                    w.st.unit(&aid)
                        .and_then(|u| u.melee.as_ref())
                        .is_some_and(|m| m.with == did)
                })?
            } else {
                vec![(1.0, Vec::new())]
            };
            for (pm, faces) in throws {
                let (fought, _) = w.play(r, faces, |t| {
                    // As the engine's melee step: a pair one of whose
                    // units is gone is out of melee.
                    let (Some(a), Some(d)) = (t.st.unit(&aid).cloned(), t.st.unit(&did).cloned())
                    else {
                        for id in [&aid, &did] {
                            if let Some(u) = t.st.unit_mut(id) {
                                u.melee = None;
                            }
                        }
                        return;
                    };
                    melee_move(t, (&aid, &did), &a, &d);
                });
                next.push((p * pm, fought));
            }
        }
        ways = next;
    }
    Some(ways)
}

/// How the move ended for the units `ids`, from the parts `before` the
/// steps between the charges and the melee step, `mid` after them and
/// `after` its morale step.
fn ending(before: &Part, mid: &Part, after: &Part, aid: &str, ids: &[String]) -> MeleeEnd {
    let lost = |p: &Part, id: &str| p.lost.get(id).copied().unwrap_or(0);
    let shot = ids
        .iter()
        .map(|id| (id.clone(), lost(mid, id).saturating_sub(lost(before, id))))
        .filter(|(_, k)| *k > 0)
        .collect();
    let mut end = MeleeEnd {
        shot,
        with: String::new(),
        fire_killed: before.credit.get(aid).copied().unwrap_or(0),
        ridden: 0,
        losses: [0, 0],
        outcome: String::new(),
        fates: Vec::new(),
    };
    for e in &after.ev {
        match e {
            Charge::RideDown { unit, killed, .. } if unit == aid => end.ridden = *killed,
            Charge::Melee {
                attacker,
                defender,
                losses,
                outcome,
                ..
            } if attacker == aid => {
                end.with.clone_from(defender);
                end.losses = *losses;
                end.outcome.clone_from(outcome);
            }
            _ => {}
        }
    }
    for id in ids {
        let test = after.ev.iter().find_map(|e| match e {
            Charge::Morale { unit, result, .. } if unit == id => Some(result.as_str()),
            _ => None,
        });
        let fate = match after.st.unit(id) {
            None => 4,
            Some(u) if u.broken => 3,
            Some(_) => match test {
                None => 0,
                Some("good" | "rallies") => 1,
                Some(_) => 2,
            },
        };
        end.fates.push((id.clone(), fate));
    }
    end
}

/// The exact odds of the next move of the attacker `aid`'s mêlée already
/// in contact on `st` (after the move's forced moves) and of the morale
/// tests of its two units after it, the side's checked orders being
/// `plans`. None: no such mêlée, or another order of the move touches its
/// units.
#[must_use]
pub fn melee_morale_odds(r: &Ruleset, st: &State, plans: &[Plan], aid: &str) -> Option<ChargeOdds> {
    let a = st.unit(aid)?;
    let d = a.melee.as_ref().filter(|m| m.attacker)?.with.clone();
    // The melee's own losses ([`melee_odds`]) are reckoned without the
    // move's fire: its morale is given only where no fire of the move
    // touches its units, so the two agree.
    let ids = [aid.to_string(), d.clone()];
    if others_touch(plans, "", &[aid, &d], true)
        || plans
            .iter()
            .any(|p| p.action.is_some() && between_needs(r, p, &ids))
    {
        return None;
    }
    let before = Part {
        st: st.clone(),
        ev: Vec::new(),
        lost: BTreeMap::new(),
        credit: BTreeMap::new(),
    };
    let mut out = ChargeOdds {
        attacker: aid.to_string(),
        target: d.clone(),
        charge: false,
        impetus: false,
        fired: 0.0,
        riders: 0,
        outcomes: BTreeMap::new(),
    };
    let mut budget = MAX_PLAYS;
    settle(
        r,
        &before,
        plans,
        aid,
        &[aid.to_string(), d],
        (1.0, &mut budget),
        &mut out.outcomes,
    )?;
    Some(out)
}
