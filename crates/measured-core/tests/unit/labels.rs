//! The picture's labels (issue 53): clear of other units and labels,
//! inside the table.

use adjutant_measured_core::labels::*;

fn square(x: f64, y: f64, s: f64) -> Vec<P> {
    vec![(x, y), (x + s, y), (x + s, y + s), (x, y + s)]
}

#[test]
fn a_label_that_does_not_fit_goes_where_it_covers_no_other_unit() {
    // A small unit hemmed in above and below: its label goes beside.
    let outlines = vec![
        square(100.0, 100.0, 6.0),
        vec![(60.0, 110.0), (150.0, 110.0), (150.0, 140.0), (60.0, 140.0)],
        vec![(60.0, 60.0), (150.0, 60.0), (150.0, 96.0), (60.0, 96.0)],
    ];
    let mut placed = Vec::new();
    let (x, y, on) = place(&outlines, 0, 8, (400.0, 300.0), &mut placed);
    assert!(!on);
    let b = label_box(x, y, 8);
    assert!(
        !covers(b, &outlines[1]) && !covers(b, &outlines[2]),
        "{b:?}"
    );
    // A second label is kept off the first.
    let (x2, y2, _) = place(&outlines, 0, 8, (400.0, 300.0), &mut placed);
    assert!(!boxes_overlap(b, label_box(x2, y2, 8)));
}

#[test]
fn a_label_stays_inside_the_table() {
    let outlines = vec![square(0.0, 0.0, 4.0)];
    let mut placed = Vec::new();
    let (x, y, _) = place(&outlines, 0, 10, (200.0, 100.0), &mut placed);
    let b = label_box(x, y, 10);
    assert!(
        b.0 >= 0.0 && b.1 >= 0.0 && b.2 <= 200.0 && b.3 <= 100.0,
        "{b:?}"
    );
}
