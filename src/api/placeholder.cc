namespace dra::api {}
