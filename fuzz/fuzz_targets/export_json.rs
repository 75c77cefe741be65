//! What `adjutant verify` reads: a game's export or a campaign's (JSON, as
//! players are given them). Verifying a forged or broken file reports
//! differences; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if text.contains(adjutant::service::campaign::CAMPAIGN_FORMAT) {
        if let Ok(c) = serde_json::from_str::<adjutant::service::campaign::CampaignExport>(text) {
            let _ = adjutant::service::campaign::verify_campaign(&c);
        }
    } else if let Ok(e) = serde_json::from_str::<adjutant::service::export::Export>(text) {
        let _ = adjutant::service::export::verify(&e);
    }
});
