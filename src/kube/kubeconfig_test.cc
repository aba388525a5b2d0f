#include "kube/kubeconfig.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace dra::kube {
namespace {

using ::testing::HasSubstr;

class KubeconfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("dractl-kubeconfig-test-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "sub");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::filesystem::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  std::filesystem::path dir_;
};

constexpr char kTwoContexts[] = R"(apiVersion: v1
kind: Config
current-context: admin
clusters:
- name: test
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: ca.crt
- name: other
  cluster:
    server: https://10.0.0.1
    certificate-authority-data: aGVsbG8=
    tls-server-name: kubernetes
users:
- name: admin
  user:
    client-certificate: certs/admin.crt
    client-key: /abs/admin.key
- name: robot
  user:
    tokenFile: token
contexts:
- name: admin
  context: {cluster: test, user: admin}
- name: robot
  context: {cluster: other, user: robot, namespace: ml}
)";

TEST_F(KubeconfigTest, CurrentContextResolvesFilesAgainstTheKubeconfigDirectory) {
  std::string path = Write("sub/config", kTwoContexts);
  StatusOr<RestConfig> c = LoadKubeconfig({path}, "");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");  // the trailing slash is dropped
  EXPECT_EQ(c->ca_file, (dir_ / "sub" / "ca.crt").string());
  EXPECT_EQ(c->client_cert_file, (dir_ / "sub" / "certs" / "admin.crt").string());
  EXPECT_EQ(c->client_key_file, "/abs/admin.key");
  EXPECT_EQ(c->namespace_, "default");
  EXPECT_TRUE(c->token.empty());
  EXPECT_THAT(c->source, HasSubstr("context admin"));
}

TEST_F(KubeconfigTest, NamedContextWithDataFieldsAndTokenFile) {
  std::string path = Write("config", kTwoContexts);
  StatusOr<RestConfig> c = LoadKubeconfig({path}, "robot");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://10.0.0.1");
  EXPECT_EQ(c->ca_pem, "hello");
  EXPECT_TRUE(c->ca_file.empty());
  EXPECT_EQ(c->tls_server_name, "kubernetes");
  EXPECT_EQ(c->token_file, (dir_ / "token").string());
  EXPECT_EQ(c->namespace_, "ml");
}

TEST_F(KubeconfigTest, FirstFileWinsPerEntryAndForCurrentContext) {
  std::string a = Write("a", R"(clusters:
- name: test
  cluster: {server: "https://first"}
contexts:
- name: ctx-x
  context: {cluster: test}
)");
  std::string b = Write("b", R"(current-context: ctx-x
clusters:
- name: test
  cluster: {server: "https://second"}
contexts:
- name: ctx-y
  context: {cluster: test}
)");
  StatusOr<RestConfig> c = LoadKubeconfig({a, b}, "");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://first");
  StatusOr<RestConfig> y = LoadKubeconfig({b, a}, "ctx-y");
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->server, "https://second");
}

TEST_F(KubeconfigTest, ErrorsNameFileLineAndField) {
  std::string path = Write("bad", R"(current-context: c
clusters:
- name: k
  cluster:
    server: 127.0.0.1:6443
contexts:
- name: c
  context: {cluster: k}
)");
  StatusOr<RestConfig> c = LoadKubeconfig({path}, "");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr(path + ":5:13: clusters[0].cluster.server: \"127.0.0.1:6443\": must start "
                               "with https:// or http://"));

  std::string exec = Write("exec", R"(current-context: c
clusters:
- name: k
  cluster: {server: "https://k"}
users:
- name: u
  user:
    exec: {command: aws}
contexts:
- name: c
  context: {cluster: k, user: u}
)");
  c = LoadKubeconfig({exec}, "");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(c.status().message(), HasSubstr(exec + ":8:11: users[0].user.exec: not supported"));

  c = LoadKubeconfig({exec}, "missing");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("context \"missing\" is not defined (contexts: c)"));

  std::string half = Write("half", R"(current-context: c
clusters:
- name: k
  cluster: {server: "https://k"}
users:
- name: u
  user: {client-certificate: a.crt}
contexts:
- name: c
  context: {cluster: k, user: u}
)");
  c = LoadKubeconfig({half}, "");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("client-certificate and client-key go together"));

  std::string bad_data = Write("bad_data", R"(current-context: c
clusters:
- name: k
  cluster: {server: "https://k", certificate-authority-data: "abc"}
contexts:
- name: c
  context: {cluster: k}
)");
  c = LoadKubeconfig({bad_data}, "");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("certificate-authority-data: invalid base64"));

  c = LoadKubeconfig({(dir_ / "nope").string()}, "");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("cannot open"));

  std::string not_config = Write("pod", "apiVersion: v1\nkind: Pod\n");
  c = LoadKubeconfig({not_config}, "");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("kind is Pod, not Config"));
}

TEST_F(KubeconfigTest, InClusterReadsTheServiceAccountDirectory) {
  std::filesystem::create_directories(dir_ / "sa");
  Write("sa/token", "abc\n");
  Write("sa/ca.crt", "pem");
  Write("sa/namespace", "ml\n");
  ::setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  StatusOr<RestConfig> c = InClusterConfig((dir_ / "sa").string());
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->server, "https://[fd00::1]:443");
  EXPECT_EQ(c->token_file, (dir_ / "sa" / "token").string());
  EXPECT_EQ(c->ca_file, (dir_ / "sa" / "ca.crt").string());
  EXPECT_EQ(c->namespace_, "ml");

  StatusOr<RestConfig> none = InClusterConfig((dir_ / "sa").string());
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("KUBERNETES_SERVICE_HOST"));
}

}  // namespace
}  // namespace dra::kube
