//! Unit tests of the batch layout, its views and its cursor.

use std::rc::Rc;

use timely::progress::frontier::Antichain;

use super::*;

#[test]
fn builder_layout_and_cursor() {
    let updates = vec![
        ((1u64, 10u64), 0u64, 1i64),
        ((1, 10), 2, -1),
        ((1, 11), 1, 1),
        ((3, 5), 0, 2),
        ((4, 1), 7, 1),
    ];
    let desc = Description::new(
        Antichain::from_elem(0),
        Antichain::from_elem(8),
        Antichain::from_elem(0),
    );
    let batch = Rc::new(BatchBuilder::from_sorted(updates.clone(), desc));
    assert_eq!(batch.len(), 5);
    assert_eq!(batch.key_count(), 3);
    assert_eq!(batch.updates(), updates);
    let mut cursor = BatchCursor::new(batch);
    cursor.seek_key(&2);
    assert_eq!(cursor.key(), &3);
    cursor.seek_val(&5);
    assert_eq!(cursor.val(), &5);
    cursor.step_val();
    assert!(!cursor.val_valid());
    cursor.seek_key(&4);
    let mut seen = Vec::new();
    cursor.map_times(|t, r| seen.push((*t, *r)));
    assert_eq!(seen, vec![(7, 1)]);
    cursor.step_key();
    assert!(!cursor.key_valid());
}

#[test]
fn advanced_view_shares_storage_and_consolidates_when_read() {
    let updates = vec![
        ((1u64, 10u64), 0u64, 1i64),
        ((1, 10), 2, -1),
        ((1, 11), 1, 1),
        ((1, 11), 3, 1),
        ((1, 11), 6, 1),
        ((2, 5), 0, 2),
        ((2, 5), 4, -2),
    ];
    let desc = Description::new(
        Antichain::from_elem(0),
        Antichain::from_elem(8),
        Antichain::from_elem(0),
    );
    let batch = Rc::new(BatchBuilder::from_sorted(updates, desc));
    let view = Rc::new(batch.advanced_view(Antichain::from_elem(4).borrow()));
    assert!(view.shares_storage(&batch));
    assert_eq!(view.description().since, Antichain::from_elem(4));
    // (1,10) cancels at 4; (1,11) sums to 2 at 4 and keeps 6; (2,5) cancels at 4.
    assert_eq!(view.updates(), vec![((1, 11), 4, 2), ((1, 11), 6, 1)]);
    let mut cursor = BatchCursor::new(Rc::clone(&view));
    let mut seen = Vec::new();
    cursor.map_times(|t, r| seen.push((*t, *r)));
    assert!(seen.is_empty(), "(1,10) consolidates to nothing");
    cursor.step_val();
    cursor.map_times(|t, r| seen.push((*t, *r)));
    assert_eq!(seen, vec![(4, 2), (6, 1)]);
    // A view of a view advances by the join of both frontiers, still sharing storage.
    let again = view.advanced_view(Antichain::from_elem(5).borrow());
    assert!(again.shares_storage(&batch));
    assert_eq!(again.updates(), vec![((1, 11), 5, 2), ((1, 11), 6, 1)]);
}

#[test]
fn advanced_view_with_product_times_matches_a_copy() {
    use timely::order::Product;
    type P = Product<u64, u64>;
    let p = |a: u64, b: u64| Product::new(a, b);
    let mut updates: Vec<((u64, u64), P, i64)> = Vec::new();
    let mut seed = 7u64;
    for _ in 0..200 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = seed >> 33;
        let diff = if x.is_multiple_of(3) { -1 } else { 1 };
        updates.push(((x % 4, (x >> 4) % 3), p((x >> 8) % 5, (x >> 12) % 5), diff));
    }
    crate::consolidation::consolidate_updates(&mut updates);
    let desc = Description::new(
        Antichain::from_elem(p(0, 0)),
        Antichain::new(),
        Antichain::from_elem(p(0, 0)),
    );
    let batch = Rc::new(BatchBuilder::from_sorted(updates.clone(), desc));
    let mut frontier = Antichain::new();
    frontier.insert(p(2, 1));
    frontier.insert(p(1, 3));
    let mut copy: Vec<((u64, u64), P, i64)> = updates
        .iter()
        .map(|(d, t, r)| {
            let mut t = *t;
            t.advance_by(frontier.borrow());
            (*d, t, *r)
        })
        .collect();
    crate::consolidation::consolidate_updates(&mut copy);
    let view = batch.advanced_view(frontier.borrow());
    assert_eq!(view.updates(), copy);
    let entered = Rc::new(view).enter::<Product<P, u32>>();
    let lifted: Vec<_> = copy
        .iter()
        .map(|(d, t, r)| (*d, Product::new(*t, 0u32), *r))
        .collect();
    assert_eq!(entered.updates(), lifted);
}

#[test]
fn gallop_finds_lower_bound() {
    let data: Vec<u32> = (0..100).map(|x| x * 2).collect();
    for from in [0, 5, 50] {
        for target in 0..210u32 {
            let expected = data
                .iter()
                .position(|x| *x >= target)
                .unwrap_or(100)
                .max(from);
            assert_eq!(gallop(&data, from, |x| *x < target), expected);
        }
    }
}

/// Random sorted, consolidated updates with many repeated (time, diff) pairs.
fn random_sorted<V: Ord + ArenaCopy + kpg_sortkey::SortKey>(
    seed: u64,
    n: usize,
    val: impl Fn(u64) -> V,
) -> Vec<((u64, V), u64, i64)> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        state >> 33
    };
    let mut updates: Vec<((u64, V), u64, i64)> = (0..n)
        .map(|_| {
            let x = next();
            let time = if x % 4 == 0 { x % 7 } else { 3 };
            let diff = if x % 5 == 0 { -1 } else { 1 };
            (((x >> 8) % 400, val(x >> 16)), time, diff)
        })
        .collect();
    crate::consolidation::consolidate_updates(&mut updates);
    updates
}

fn read_all<V: Ord + ArenaCopy>(batch: Rc<Batch<u64, V, u64, i64>>) -> Vec<((u64, V), u64, i64)> {
    let mut cursor = BatchCursor::new(batch);
    let mut seen = Vec::new();
    while cursor.key_valid() {
        while cursor.val_valid() {
            let (k, v) = (*cursor.key(), cursor.val().clone());
            cursor.map_times(|t, r| seen.push(((k, v.clone()), *t, *r)));
            cursor.step_val();
        }
        cursor.step_key();
    }
    seen
}

#[test]
fn key_only_and_keyed_layouts_round_trip_with_repeats_stored_once() {
    assert!(Batch::<u64, (), u64, i64>::key_only());
    assert!(!Batch::<u64, u64, u64, i64>::key_only());
    let desc = || {
        Description::new(
            Antichain::from_elem(0),
            Antichain::from_elem(8),
            Antichain::from_elem(0),
        )
    };
    for seed in 0..20 {
        let keyed = random_sorted(seed, 300, |x| x % 3);
        let batch = Rc::new(BatchBuilder::from_sorted(keyed.clone(), desc()));
        assert_eq!(batch.len(), keyed.len());
        assert!(batch.stored_len() < batch.len(), "repeats are stored once");
        assert_eq!(batch.updates(), keyed);
        assert_eq!(read_all(Rc::clone(&batch)), keyed);

        // Vals that own heap bytes and keep none in the arena are moved in, not copied.
        let strings = random_sorted(seed, 300, |x| format!("val {}", x % 3));
        let batch = Rc::new(BatchBuilder::from_sorted(strings.clone(), desc()));
        assert_eq!(batch.updates(), strings);
        assert_eq!(read_all(Rc::clone(&batch)), strings);

        let keys = random_sorted(seed, 300, |_| ());
        let batch = Rc::new(BatchBuilder::from_sorted(keys.clone(), desc()));
        assert_eq!(batch.len(), keys.len());
        assert_eq!(batch.val_count(), batch.key_count());
        assert!(batch.stored_len() < batch.len(), "repeats are stored once");
        assert_eq!(batch.updates(), keys);
        assert_eq!(read_all(Rc::clone(&batch)), keys);
        // Seeking every key (and a missing one) finds exactly its updates.
        for key in 0..401u64 {
            let mut cursor = BatchCursor::new(Rc::clone(&batch));
            cursor.seek_key(&key);
            let mut got = Vec::new();
            if cursor.key_valid() && *cursor.key() == key {
                cursor.map_times(|t, r| got.push(((key, ()), *t, *r)));
                cursor.step_val();
                assert!(!cursor.val_valid(), "a key-only batch has one val per key");
            }
            let want: Vec<_> = keys.iter().filter(|u| u.0 .0 == key).cloned().collect();
            assert_eq!(got, want, "key {key}");
        }
        // Merging two key-only batches with compaction equals the consolidated union.
        let other = random_sorted(seed + 100, 300, |_| ());
        let newer = Rc::new(BatchBuilder::from_sorted(
            other.clone(),
            Description::new(
                Antichain::from_elem(8),
                Antichain::from_elem(9),
                Antichain::from_elem(0),
            ),
        ));
        let mut merger =
            crate::trace::merge::Merger::new(Rc::clone(&batch), newer, Antichain::from_elem(5));
        merger.work(&mut isize::MAX.clone());
        let merged = merger.done();
        let mut want: Vec<_> = keys
            .iter()
            .chain(other.iter())
            .map(|(d, t, r)| (*d, (*t).max(5), *r))
            .collect();
        crate::consolidation::consolidate_updates(&mut want);
        assert_eq!(merged.updates(), want);
    }
}
