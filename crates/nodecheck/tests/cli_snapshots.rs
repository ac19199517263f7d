//! insta snapshots of each output format on representative fixture machines. When a finding's
//! wording or a renderer changes on purpose, review with `cargo insta review`.

use crate::cli_support::{stable, stdout, Fixture};

fn render(scenario: &str, args: &[&str]) -> String {
    let fixture = Fixture::named(scenario);
    let out = fixture.check(args);
    stable(&stdout(&out), fixture.root())
}

#[test]
fn table_sata_ahci() {
    insta::assert_snapshot!(render("sata_ahci", &[]));
}

#[test]
fn table_verbose_lvm_on_partition() {
    insta::assert_snapshot!(render("lvm_on_partition", &["-v"]));
}

#[test]
fn table_quiet_hdd() {
    insta::assert_snapshot!(render("hdd", &["-q"]));
}

#[test]
fn json_nvme_degraded_pcie_link() {
    insta::assert_snapshot!(render("nvme_degraded_pcie_link", &["--json"]));
}

#[test]
fn markdown_dm_crypt() {
    insta::assert_snapshot!(render("dm_crypt", &["--format", "markdown"]));
}

#[test]
fn discord_usb_uas() {
    insta::assert_snapshot!(render("usb_uas", &["--format", "discord"]));
}

#[test]
fn prometheus_md_raid1() {
    insta::assert_snapshot!(render("md_raid1", &["--format", "prometheus"]));
}

#[test]
fn table_hostile_huge_model() {
    insta::assert_snapshot!(render("hostile_huge_model", &[]));
}

#[test]
fn table_client_choice_names_the_client() {
    insta::assert_snapshot!(render("virtio_vps", &["--client", "erigon", "-q"]));
}
