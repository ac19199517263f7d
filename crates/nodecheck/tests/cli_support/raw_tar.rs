//! A gzip-compressed tar stream written header by header, so a test archive can hold what no
//! archiver writes on its own: thousands of nested directories, GNU long names of any length.

use std::io::Write;
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

pub struct RawTar {
    pub gz: GzEncoder<std::fs::File>,
}

impl RawTar {
    pub fn create(path: &Path) -> RawTar {
        RawTar {
            gz: GzEncoder::new(
                std::fs::File::create(path).expect("create"),
                Compression::fast(),
            ),
        }
    }

    /// An entry of `kind` named `name`, through a GNU long-name entry when it does not fit the
    /// header's 100 bytes; `data` follows it, padded to its 512-byte block.
    pub fn entry(&mut self, name: &str, kind: tar::EntryType, data: &[u8]) {
        let short = if name.len() < 100 {
            name
        } else {
            let mut long = name.as_bytes().to_vec();
            long.push(0);
            self.header(
                "././@LongLink",
                tar::EntryType::GNULongName,
                long.len() as u64,
            );
            self.data(&long);
            "long"
        };
        self.header(short, kind, data.len() as u64);
        self.data(data);
    }

    fn header(&mut self, name: &str, kind: tar::EntryType, size: u64) {
        let mut header = tar::Header::new_gnu();
        header.set_path(name).expect("name");
        header.set_entry_type(kind);
        header.set_size(size);
        header.set_mode(if kind == tar::EntryType::Directory {
            0o755
        } else {
            0o644
        });
        header.set_cksum();
        self.gz.write_all(header.as_bytes()).expect("write");
    }

    fn data(&mut self, bytes: &[u8]) {
        self.gz.write_all(bytes).expect("write");
        let pad = (512 - bytes.len() % 512) % 512;
        self.gz.write_all(&vec![0; pad]).expect("write");
    }

    pub fn finish(mut self) {
        self.gz.write_all(&[0; 1024]).expect("write");
        self.gz.finish().expect("gzip");
    }
}
