//! No import circles between this crate's modules, at any depth (the
//! reader is `.ci/module_graph.rs`, shared by every crate; here through
//! test-support).

use test_support::module_graph as graph;

#[test]
fn the_modules_import_each_other_without_a_circle() {
    graph::self_check();
    graph::assert_no_circles(env!("CARGO_MANIFEST_DIR"));
}
