//! Unit tests of `src/predict.rs`.

use adjutant_syw::predict::MAX_DICE;
use adjutant_syw::state::load;

/// Issue 55: no legal Seven Years' War fire reaches PREDICT's bound
/// (`MAX_DICE`), so every fire is reckoned exactly (docs/orders.md). A
/// fire's dice (the engine's `fire_dice`) are at most the unit's figures
/// (a battery's crew), a scenario giving a unit at most twice the book's
/// figures (checked below: one more is refused), plus the largest fire
/// bonus, a dense target's dice and canister's. Fails if the ruleset's
/// tables grow past the bound.
#[test]
fn no_legal_fire_reaches_the_dice_bound() {
    let r = adjutant_syw::builtin().unwrap();
    let t = r.syw.as_deref().unwrap();
    let bonus = t.experience.values().map(|e| e.bonus_dice).max().unwrap();
    let mut largest = 0;
    for (id, tr) in &r.troops {
        let most = 2 * tr.rank_and_file;
        let unit = |n: u32| {
            format!(
                "id = \"p\"\nruleset = \"seven-years-war\"\ntitle = \"p\"\nmoves = 12\n\
                 table = [96, 72]\nsides = [\"allied\", \"french\"]\n\
                 [[units]]\nid = \"A\"\nside = \"allied\"\ntype = \"{id}\"\nat = [36, 10]\n\
                 rank_and_file = {n}\n"
            )
        };
        assert!(
            load(&r, &unit(most), "p.toml").is_ok(),
            "{id}: {most} figures"
        );
        assert!(
            load(&r, &unit(most + 1), "p.toml").is_err(),
            "{id}: {} figures accepted",
            most + 1
        );
        let canister = if tr.class == "artillery" {
            t.canister_dice
        } else {
            0
        };
        largest = largest.max(most + bonus + t.dense_dice + canister);
    }
    // 48 figures of line infantry, +2 veterans' bonus, +2 dense target.
    assert_eq!(largest, 52);
    assert!(largest <= MAX_DICE, "{largest} dice past {MAX_DICE}");
}
