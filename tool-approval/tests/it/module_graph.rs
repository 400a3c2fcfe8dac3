//! No import circles between this crate's modules, at any depth (the
//! reader is `.ci/module_graph.rs`, shared by every crate).

use test_support::module_graph;

#[test]
fn the_modules_import_each_other_without_a_circle() {
    module_graph::self_check();
    module_graph::assert_no_circles(env!("CARGO_MANIFEST_DIR"));
}
